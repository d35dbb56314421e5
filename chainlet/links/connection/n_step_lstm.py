"""``NStepLSTM`` and ``NStepBiLSTM``: stacked LSTMs over variable-length sequences."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm
from chainlet.links.connection.n_step_rnn import NStepRNNBase


class NStepLSTMBase(NStepRNNBase):
    """Shared ``forward(hx, cx, xs)`` of the LSTM variants (eight weights per layer)."""

    n_weights = 8
    n_cells = 2

    def forward(self, hx: Any, cx: Any, xs: Sequence[Any]) -> tuple:  # type: ignore[override]
        """Run the LSTM over the sequences ``xs``.

        Args:
            hx: Initial hidden states ``(S, B, out_size)`` (``S = n_layers * directions``) or
                ``None`` for zeros.
            cx: Initial cell states, same shape, or ``None``.
            xs: List of ``B`` sequences; ``xs[i]`` has shape ``(L_i, in_size)``, in any order
                of lengths.

        Returns:
            Tuple ``(hy, cy, ys)``: final hidden and cell states (shaped like ``hx``) and the
            list of the last layer's outputs, ``ys[i]`` of shape ``(L_i, out_size *
            directions)``.
        """
        (hy, cy), ys = self._call([hx, cx], xs)
        return hy, cy, ys


class NStepLSTM(NStepLSTMBase):
    """Stacked uni-directional LSTM over a list of sequences of different lengths.

    The sequences are sorted, transposed to time-major batches for
    :func:`chainlet.functions.n_step_lstm` and restored to the given order. The weights live in
    children ``'0'``, ``'1'``, ... (one per layer) as ``w0 ... w7`` and ``b0 ... b7``, Chainer's
    layout: ``w0``-``w3`` act on the input (input, forget, cell and output gates), ``w4``-``w7``
    on the previous hidden state.

    Args:
        n_layers: Number of layers.
        in_size: Size of the input vectors.
        out_size: Number of hidden units.
        dropout: Dropout ratio between layers.
        initialW: Initializer of the weights; default ``Normal(sqrt(1 / in))``.
        initial_bias: Initializer of the biases; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> lstm = L.NStepLSTM(1, 3, 4, 0.0)
        >>> xs = [np.ones((2, 3), np.float32), np.ones((5, 3), np.float32)]
        >>> hy, cy, ys = lstm(None, None, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((1, 2, 4), (1, 2, 4), [(2, 4), (5, 4)])
        >>> sorted(name for name, _ in lstm.namedparams())[:3]
        ['/0/b0', '/0/b1', '/0/b2']
    """

    def rnn(self, *args: Any) -> tuple:
        return n_step_lstm(*args)


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bi-directional LSTM (see :class:`NStepLSTM`); states have ``2 * n_layers``
    rows and outputs ``2 * out_size`` units. Children ``2k`` and ``2k + 1`` are the forward and
    backward directions of layer ``k``.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> lstm = L.NStepBiLSTM(1, 3, 4, 0.0)
        >>> hy, cy, ys = lstm(None, None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return n_step_bilstm(*args)
