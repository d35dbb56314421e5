"""Stacked (bi-directional) LSTM over variable-length sequences with Chainer's weight layout."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.transpose import transpose
from chainlet.functions.math.matmul import matmul
from chainlet.functions.rnn import _ops
from chainlet.functions.rnn.lstm import lstm
from chainlet.functions.rnn.n_step_rnn import _Cell, check_inputs, n_step_impl

# Chainer's ws[k][j] -> gate: W0/W4 input gate, W1/W5 forget gate, W2/W6 cell input, W3/W7
# output gate (cuDNN's order). lstm() wants (a, i, f, o), hence this permutation.
_GATE_ORDER = (2, 0, 1, 3)


class _LSTMCell(_Cell):
    n_weights = 8
    use_cell = True

    def prepare(self, w, b):
        wxt = _ops.interleave([transpose(w[j]) for j in _GATE_ORDER])
        wht = _ops.interleave([transpose(w[j + 4]) for j in _GATE_ORDER])
        units = w[0].shape[0]
        bx = _ops.interleave([reshape(b[j] + b[j + 4], (1, units)) for j in _GATE_ORDER])
        return wxt, bx, wht

    def step(self, xw, h, c, params):
        c, h = lstm(c, xw + matmul(h, params))
        return h, c


def _lstm(x: Any, h: Any, c: Any, w: Sequence[Any], b: Sequence[Any]) -> tuple:
    """One LSTM step with one layer's eight weights and biases in Chainer's layout.

    Chainer's private per-step function, kept under its name because libraries built on Chainer
    (ChainerRL's recurrent models) call it.

    Shape:
        ``x``: ``(B, I)``; ``h``, ``c``: ``(B, N)``; ``w[0..3]``: ``(N, I)``; ``w[4..7]``:
        ``(N, N)``; ``b[j]``: ``(N,)``. Returns ``(h_new, c_new)``, each ``(B, N)``.

    Example:
        >>> import numpy as np
        >>> from chainlet.functions.rnn.n_step_lstm import _lstm
        >>> w = [np.zeros((2, 3 if j < 4 else 2), np.float32) for j in range(8)]
        >>> b = [np.zeros((2,), np.float32) for _ in range(8)]
        >>> x, h, c = (np.ones((1, 3), np.float32), np.zeros((1, 2), np.float32),
        ...            np.ones((1, 2), np.float32))
        >>> h_new, c_new = _lstm(x, h, c, w, b)
        >>> c_new.array  # forget gate sigmoid(0) = 0.5 keeps half of c
        array([[0.5, 0.5]], dtype=float32)
    """
    wxt, bx, wht = _LSTMCell().prepare(w, b)
    return _LSTMCell().step(matmul(x, wxt) + bx, h, c, wht)


def _n_step_lstm_base(func: str, n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                      ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                      xs: Sequence[Any], directions: int, kwargs: dict) -> tuple:
    _ops.check_kwargs(func, kwargs)
    cell = _LSTMCell()
    batches = check_inputs(func, cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions)
    return n_step_impl(cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, batches, directions)


def n_step_lstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                **kwargs: Any) -> tuple:
    """Stacked uni-directional LSTM over variable-length sequences.

    For each layer (``W_j`` = ``ws[k][j]``, ``b_j`` = ``bs[k][j]``):

    .. math::
        i_t &= \\sigma(W_0 x_t + W_4 h_{t-1} + b_0 + b_4), \\quad
        f_t = \\sigma(W_1 x_t + W_5 h_{t-1} + b_1 + b_5), \\\\
        a_t &= \\tanh(W_2 x_t + W_6 h_{t-1} + b_2 + b_6), \\quad
        o_t = \\sigma(W_3 x_t + W_7 h_{t-1} + b_3 + b_7), \\\\
        c_t &= f_t c_{t-1} + i_t a_t, \\quad h_t = o_t \\tanh(c_t).

    This is the layout Chainer's code and cuDNN use (Chainer's docstring swaps the roles of
    ``W_2`` and ``W_3``; its code does not). The input of layer ``k > 0`` is the output of
    layer ``k - 1``, passed through dropout when ``chainlet.config.train`` is on.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio between layers, in ``[0, 1)``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        cx: Initial cell states, shape ``(S, B, N)``.
        ws: ``S`` lists of eight matrices: ``ws[0][0:4]`` are ``(N, I)``, all others
            ``(N, N)``.
        bs: ``S`` lists of eight biases of shape ``(N,)``.
        xs: Time-major list of inputs: ``xs[t]`` has shape ``(B_t, I)`` with ``B_t`` not
            increasing in ``t`` (sort sequences by decreasing length, then transpose).

    Returns:
        Tuple ``(hy, cy, ys)``: last hidden and cell states ``(S, B, N)`` (a sequence that ends
        early keeps its state at its own last step) and a tuple of the last layer's outputs
        ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.ones((3, 3), np.float32), np.ones((2, 3), np.float32)]
        >>> hx = cx = np.zeros((2, 3, 4), np.float32)
        >>> ws = [[np.ones((4, 3 if k == 0 and j < 4 else 4), np.float32) for j in range(8)]
        ...       for k in range(2)]
        >>> bs = [[np.zeros(4, np.float32) for j in range(8)] for k in range(2)]
        >>> hy, cy, ys = F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((2, 3, 4), (2, 3, 4), [(3, 4), (2, 4)])
    """
    return _n_step_lstm_base('n_step_lstm', n_layers, dropout_ratio, hx, cx, ws, bs, xs, 1,
                             kwargs)


def n_step_bilstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                  ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                  **kwargs: Any) -> tuple:
    """Stacked bi-directional LSTM over variable-length sequences.

    Each layer runs :func:`n_step_lstm`'s cell forward in time (weights ``ws[2k]``, states
    ``hx[2k]``, ``cx[2k]``) and backward in time (``ws[2k + 1]``, ``hx[2k + 1]``,
    ``cx[2k + 1]``); its output at time ``t`` is ``[h^f_t; h^b_t]`` of size ``2N``.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio between layers, in ``[0, 1)``.
        hx: Initial hidden states, shape ``(2S, B, N)``.
        cx: Initial cell states, shape ``(2S, B, N)``.
        ws: ``2S`` lists of eight matrices: ``ws[k][0:4]`` are ``(N, I)`` for ``k < 2`` and
            ``(N, 2N)`` otherwise; ``ws[k][4:8]`` are ``(N, N)``.
        bs: ``2S`` lists of eight biases of shape ``(N,)``.
        xs: Time-major list of inputs ``(B_t, I)`` with ``B_t`` not increasing.

    Returns:
        Tuple ``(hy, cy, ys)``: ``hy`` and ``cy`` of shape ``(2S, B, N)``, ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.ones((2, 3)), np.ones((1, 3))]
        >>> hx = cx = np.zeros((2, 2, 4))
        >>> ws = [[np.ones((4, 3 if j < 4 else 4)) for j in range(8)] for d in range(2)]
        >>> bs = [[np.zeros(4) for j in range(8)] for d in range(2)]
        >>> hy, cy, ys = F.n_step_bilstm(1, 0.0, hx, cx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 8), (1, 8)])
    """
    return _n_step_lstm_base('n_step_bilstm', n_layers, dropout_ratio, hx, cx, ws, bs, xs, 2,
                             kwargs)


def n_step_lstm_base(n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                     ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                     xs: Sequence[Any], use_bi_direction: bool, **kwargs: Any) -> tuple:
    """:func:`n_step_lstm` or :func:`n_step_bilstm`, chosen by ``use_bi_direction``.

    Chainer's common entry point of the two; the arguments and results are theirs.
    """
    name = 'n_step_bilstm' if use_bi_direction else 'n_step_lstm'
    return _n_step_lstm_base(name, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                             2 if use_bi_direction else 1, kwargs)
