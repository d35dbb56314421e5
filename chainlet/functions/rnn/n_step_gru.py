"""Stacked (bi-directional) GRU over variable-length sequences with Chainer's weight layout."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.activation.sigmoid import sigmoid
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.transpose import transpose
from chainlet.functions.math.matmul import matmul
from chainlet.functions.rnn import _ops
from chainlet.functions.rnn.n_step_rnn import _Cell, check_inputs, n_step_impl


class _GRUCell(_Cell):
    """Reset and update gates share one product; the candidate's hidden part stays separate
    because the reset gate multiplies it (bias ``b5`` included)."""

    n_weights = 6

    def prepare(self, w, b):
        wxt = transpose(_ops.concat([w[0], w[1], w[2]], axis=0))
        bx = _ops.concat([b[0] + b[3], b[1] + b[4], b[2]], axis=0)
        wht_rz = transpose(_ops.concat([w[3], w[4]], axis=0))
        return wxt, bx, (wht_rz, transpose(w[5]), b[5], w[0].shape[0])

    def step(self, xw, h, c, params):
        wht_rz, wht_n, b_n, units = params
        rz = sigmoid(xw[:, :2 * units] + matmul(h, wht_rz))
        r, z = rz[:, :units], rz[:, units:]
        h_bar = tanh(xw[:, 2 * units:] + r * (matmul(h, wht_n) + b_n))
        return h_bar + z * (h - h_bar), None


def _n_step_gru_base(func: str, n_layers: int, dropout_ratio: float, hx: Any,
                     ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                     xs: Sequence[Any], directions: int, kwargs: dict) -> tuple:
    _ops.check_kwargs(func, kwargs)
    cell = _GRUCell()
    batches = check_inputs(func, cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                           directions)
    hy, _, ys = n_step_impl(cell, n_layers, dropout_ratio, hx, None, ws, bs, xs, batches,
                            directions)
    return hy, ys


def n_step_gru(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
               bs: Sequence[Sequence[Any]], xs: Sequence[Any], **kwargs: Any) -> tuple:
    """Stacked uni-directional GRU over variable-length sequences.

    For each layer (``W_j`` = ``ws[k][j]``, ``b_j`` = ``bs[k][j]``):

    .. math::
        r_t &= \\sigma(W_0 x_t + W_3 h_{t-1} + b_0 + b_3), \\quad
        z_t = \\sigma(W_1 x_t + W_4 h_{t-1} + b_1 + b_4), \\\\
        \\bar h_t &= \\tanh(W_2 x_t + b_2 + r_t \\odot (W_5 h_{t-1} + b_5)), \\quad
        h_t = (1 - z_t) \\odot \\bar h_t + z_t \\odot h_{t-1}.

    The input of layer ``k > 0`` is the output of layer ``k - 1``, passed through dropout when
    ``chainlet.config.train`` is on.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio between layers, in ``[0, 1)``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``S`` lists of six matrices: ``ws[0][0:3]`` are ``(N, I)``, all others ``(N, N)``.
        bs: ``S`` lists of six biases of shape ``(N,)``.
        xs: Time-major list of inputs: ``xs[t]`` has shape ``(B_t, I)`` with ``B_t`` not
            increasing in ``t`` (sort sequences by decreasing length, then transpose).

    Returns:
        Tuple ``(hy, ys)``: the last hidden states ``(S, B, N)`` and a tuple of the last
        layer's outputs ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]
        >>> hx = np.zeros((1, 2, 4), np.float32)
        >>> ws = [[np.ones((4, 3 if j < 3 else 4), np.float32) for j in range(6)]]
        >>> bs = [[np.zeros(4, np.float32) for j in range(6)]]
        >>> hy, ys = F.n_step_gru(1, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 4), [(2, 4), (1, 4)])
    """
    return _n_step_gru_base('n_step_gru', n_layers, dropout_ratio, hx, ws, bs, xs, 1, kwargs)


def n_step_bigru(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                 bs: Sequence[Sequence[Any]], xs: Sequence[Any], **kwargs: Any) -> tuple:
    """Stacked bi-directional GRU over variable-length sequences.

    Each layer runs :func:`n_step_gru`'s cell forward in time (weights ``ws[2k]``, state
    ``hx[2k]``) and backward in time (``ws[2k + 1]``, ``hx[2k + 1]``); its output at time ``t``
    is ``[h^f_t; h^b_t]`` of size ``2N``.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio between layers, in ``[0, 1)``.
        hx: Initial hidden states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of six matrices: ``ws[k][0:3]`` are ``(N, I)`` for ``k < 2`` and
            ``(N, 2N)`` otherwise; ``ws[k][3:6]`` are ``(N, N)``.
        bs: ``2S`` lists of six biases of shape ``(N,)``.
        xs: Time-major list of inputs ``(B_t, I)`` with ``B_t`` not increasing.

    Returns:
        Tuple ``(hy, ys)``: ``hy`` of shape ``(2S, B, N)`` and ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.ones((2, 3)), np.ones((1, 3))]
        >>> ws = [[np.ones((4, 3 if j < 3 else 4)) for j in range(6)] for d in range(2)]
        >>> bs = [[np.zeros(4) for j in range(6)] for d in range(2)]
        >>> hy, ys = F.n_step_bigru(1, 0.0, np.zeros((2, 2, 4)), ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 8), (1, 8)])
    """
    return _n_step_gru_base('n_step_bigru', n_layers, dropout_ratio, hx, ws, bs, xs, 2, kwargs)


def n_step_gru_base(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any], use_bi_direction: bool,
                    **kwargs: Any) -> tuple:
    """:func:`n_step_gru` or :func:`n_step_bigru`, chosen by ``use_bi_direction``.

    Chainer's common entry point of the two; the arguments and results are theirs.
    """
    name = 'n_step_bigru' if use_bi_direction else 'n_step_gru'
    return _n_step_gru_base(name, n_layers, dropout_ratio, hx, ws, bs, xs,
                            2 if use_bi_direction else 1, kwargs)
