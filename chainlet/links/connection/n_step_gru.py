"""``NStepGRU`` and ``NStepBiGRU``: stacked GRUs over variable-length sequences."""
from __future__ import annotations

from typing import Any

from chainlet.functions.rnn.n_step_gru import n_step_bigru, n_step_gru
from chainlet.links.connection.n_step_rnn import NStepRNNBase


class NStepGRUBase(NStepRNNBase):
    """Base of :class:`NStepGRU` and :class:`NStepBiGRU`: six weights and six biases per layer
    and direction (Chainer's class of the same name)."""

    n_weights = 6


class NStepGRU(NStepGRUBase):
    """Stacked uni-directional GRU over a list of sequences of different lengths.

    ``forward(hx, xs)`` returns ``(hy, ys)`` as :meth:`NStepRNNBase.forward`. Each layer's child
    holds ``w0 ... w5`` and ``b0 ... b5`` (reset, update and candidate weights on the input,
    then on the hidden state), the layout of :func:`chainlet.functions.n_step_gru`.

    Args:
        n_layers: Number of layers.
        in_size: Size of the input vectors.
        out_size: Number of hidden units.
        dropout: Dropout ratio between layers.
        initialW: Initializer of the weights; default ``Normal(sqrt(1 / in))``.
        initial_bias: Initializer of the biases; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> gru = L.NStepGRU(2, 3, 4, 0.0)
        >>> hy, ys = gru(None, [np.ones((3, 3), np.float32), np.ones((1, 3), np.float32)])
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(3, 4), (1, 4)])
    """

    def rnn(self, *args: Any) -> tuple:
        return n_step_gru(*args)


class NStepBiGRU(NStepGRUBase):
    """Stacked bi-directional GRU (see :class:`NStepGRU`); outputs have ``2 * out_size``
    units."""

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return n_step_bigru(*args)
