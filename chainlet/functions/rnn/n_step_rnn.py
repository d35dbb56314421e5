"""Stacked (bi-directional) Elman RNN over variable-length sequences, and the loop shared by
:func:`~chainlet.functions.n_step_lstm` and :func:`~chainlet.functions.n_step_gru`.

Inputs follow Chainer: ``xs`` is time-major (``xs[t]`` has shape ``(B_t, I)`` with
``B_t >= B_{t+1}``, i.e. sequences sorted by decreasing length, then transposed), ``hx`` has
shape ``(S * D, B, N)`` (``D = 2`` when bi-directional, forward direction first), and
``ws[S * D]`` / ``bs[S * D]`` hold the per-layer weight matrices ``(N, in)`` and biases ``(N,)``.
The input projections of a whole layer are computed with one matrix product; only the
hidden-to-hidden product runs step by step.
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Callable, Optional, Sequence, cast

from chainlet import _config
from chainlet import type_check
from chainlet.functions.activation.relu import relu
from chainlet.functions.activation.tanh import tanh
from chainlet.functions.array.stack import stack
from chainlet.functions.array.transpose import transpose
from chainlet.functions.math.matmul import matmul
from chainlet.functions.noise.dropout import dropout
from chainlet.functions.rnn import _ops
from chainlet.variable import Variable


class _Cell:
    """How one kind of recurrent cell uses its weights; each kind defines two methods.

    ``prepare(w, b)`` returns ``(WxT, bx, params)``: the transposed input weights ``(in, G)``,
    the input bias ``(G,)`` and what ``step`` needs (computed once per layer and direction).
    ``step(xw, h, c, params)`` advances one time step from the projected input ``xw`` of shape
    ``(B_t, G)`` and returns ``(h, c)`` (``c`` is ``None`` without a cell state).

    Attributes:
        n_weights: Number of matrices (and biases) per layer and direction; the first half
            multiply the layer input, the second half the hidden state.
        use_cell: Whether the cell carries a cell state ``c`` besides ``h`` (LSTM).
    """

    n_weights = 2
    use_cell = False

    if TYPE_CHECKING:  # what each kind defines (see above)
        def prepare(self, w: Sequence[Any], b: Sequence[Any]) -> tuple: ...

        def step(self, xw: Variable, h: Variable, c: Optional[Variable],
                 params: Any) -> tuple: ...


class _ElmanCell(_Cell):
    """``h_t = f(W0 x_t + W1 h_{t-1} + b0 + b1)``."""

    def __init__(self, activation: Callable[[Variable], Variable]) -> None:
        self.activation = activation

    def prepare(self, w, b):
        return transpose(w[0]), b[0] + b[1], transpose(w[1])

    def step(self, xw, h, c, params):
        return self.activation(xw + matmul(h, params)), None


def _check_dtype(func: str, name: str, a: Any, dtype: Any) -> None:
    if a.dtype != dtype:
        raise type_check.fail(func, name, f'dtype {dtype} (the dtype of hx)', str(a.dtype))


def _check_shape(func: str, name: str, a: Any, shape: tuple) -> None:
    if tuple(a.shape) != shape:
        raise ValueError(f'{func}: argument {name}: expected shape {shape}, got {a.shape}')


def check_inputs(func: str, cell: _Cell, n_layers: Any, dropout_ratio: Any, hx: Any, cx: Any,
                 ws: Any, bs: Any, xs: Any, directions: int) -> list:
    """Validate every argument of an ``n_step_*`` function; return the batch sizes ``B_t``.

    Wrong Python types and dtypes raise ``TypeError``; wrong counts, shapes, ranges and an
    unsorted batch raise ``ValueError``. Messages name the function and the argument.
    """
    if isinstance(n_layers, bool) or not isinstance(n_layers, int):
        raise TypeError(f'{func}: argument n_layers: expected an int, '
                        f'got {type(n_layers).__name__}')
    if n_layers < 1:
        raise ValueError(f'{func}: argument n_layers: expected >= 1, got {n_layers}')
    if isinstance(dropout_ratio, bool) or not isinstance(dropout_ratio, numbers.Real):
        raise TypeError(f'{func}: argument dropout_ratio: expected a float, '
                        f'got {type(dropout_ratio).__name__}')
    if not 0.0 <= float(dropout_ratio) < 1.0:
        raise ValueError(f'{func}: argument dropout_ratio: expected a value in [0, 1), '
                         f'got {dropout_ratio}')
    type_check.argument(func, 'hx', hx, kind='f')
    dtype = hx.dtype
    n_states = n_layers * directions
    if hx.ndim != 3 or hx.shape[0] != n_states:
        raise ValueError(f'{func}: argument hx: expected shape ({n_states}, B, N) '
                         f'(n_layers * {directions}, batch, units), got {hx.shape}')
    _, batch, units = hx.shape
    if cell.use_cell:
        type_check.argument(func, 'cx', cx, kind='f')
        _check_dtype(func, 'cx', cx, dtype)
        _check_shape(func, 'cx', cx, tuple(hx.shape))
    if not isinstance(xs, (list, tuple)) or len(xs) == 0:
        raise ValueError(f'{func}: argument xs: expected a non-empty list of (B_t, I) arrays, '
                         f'got {xs!r:.60}')
    batches = []
    for t, x in enumerate(xs):
        type_check.argument(func, f'xs[{t}]', x, kind='f')
        _check_dtype(func, f'xs[{t}]', x, dtype)
        if x.ndim != 2 or x.shape[1] != xs[0].shape[1]:
            raise ValueError(f'{func}: argument xs[{t}]: expected shape (B_t, '
                             f'{xs[0].shape[1]}), got {x.shape}')
        batches.append(x.shape[0])
    if any(b1 < b2 for b1, b2 in zip(batches, batches[1:])) or batches[0] > batch:
        raise ValueError(f'{func}: argument xs: batch sizes must not increase with t and must '
                         f'not exceed that of hx ({batch}); sort the sequences by decreasing '
                         f'length before transposing them; got batch sizes {batches}')
    in_size = xs[0].shape[1]
    for name, group in (('ws', ws), ('bs', bs)):
        if not isinstance(group, (list, tuple)) or len(group) != n_states:
            got = len(group) if isinstance(group, (list, tuple)) else type(group).__name__
            raise ValueError(f'{func}: argument {name}: expected {n_states} lists (n_layers * '
                             f'{directions}) of {cell.n_weights} arrays, got {got}')
        for k, item in enumerate(group):
            if not isinstance(item, (list, tuple)) or len(item) != cell.n_weights:
                got = len(item) if isinstance(item, (list, tuple)) else type(item).__name__
                raise ValueError(f'{func}: argument {name}[{k}]: expected a list of '
                                 f'{cell.n_weights} arrays, got {got}')
    w00 = ws[0][0]
    if getattr(w00, 'ndim', None) == 2 and w00.shape[1] != in_size:
        raise ValueError(f'{func}: arguments xs and ws: inconsistent input size: xs[0] has shape '
                         f'{tuple(xs[0].shape)} ({in_size} inputs), ws[0][0] has shape '
                         f'{tuple(w00.shape)} ({w00.shape[1]} inputs)')
    half = cell.n_weights // 2
    for k in range(n_states):
        layer_in = in_size if k < directions else units * directions
        for j in range(cell.n_weights):
            w, b = ws[k][j], bs[k][j]
            for name, a, shape in ((f'ws[{k}][{j}]', w, (units, layer_in if j < half else units)),
                                   (f'bs[{k}][{j}]', b, (units,))):
                type_check.argument(func, name, a, kind='f')
                _check_dtype(func, name, a, dtype)
                _check_shape(func, name, a, shape)
    return batches


def _one_direction(cell: _Cell, xw: Variable, batches: Sequence[int], h0: Variable,
                   c0: Optional[Variable], params: Any, reverse: bool) -> tuple:
    """Run one direction of one layer; return ``(h_last, c_last, [h_t])``.

    Going forward the batch only shrinks: rows that end leave the state and are kept aside as
    their final state. Going backward it only grows: rows start from ``h0`` when their last
    element is reached.
    """
    starts = [0]
    for b in batches:
        starts.append(starts[-1] + b)
    full = h0.shape[0]
    h, c, cur = h0, c0, full
    h_tail: list = []
    c_tail: list = []
    outs: list = [None] * len(batches)
    order = range(len(batches) - 1, -1, -1) if reverse else range(len(batches))
    for t in order:
        b = batches[t]
        if b < cur:
            h_tail.insert(0, h[b:])
            h = h[:b]
            if c is not None:
                c_tail.insert(0, c[b:])
                c = c[:b]
        elif b > cur:
            # Only when reversed; the tail is then still an untouched slice of the initial state.
            h = _ops.concat([h, h0[cur:b]], axis=0)
            h_tail = [h0[b:]] if b < full else []
            if c is not None:  # so c0 is not None either
                c_init = cast(Variable, c0)
                c = _ops.concat([c, c_init[cur:b]], axis=0)
                c_tail = [c_init[b:]] if b < full else []
        cur = b
        xw_t = xw if len(batches) == 1 else xw[starts[t]:starts[t + 1]]
        h, c = cell.step(xw_t, h, c, params)
        outs[t] = h
    if h_tail:
        h = _ops.concat([h] + h_tail, axis=0)
        if c is not None:
            c = _ops.concat([c] + c_tail, axis=0)
    return h, c, outs


def n_step_impl(cell: _Cell, n_layers: int, dropout_ratio: float, hx: Any, cx: Any,
                ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]], xs: Sequence[Any],
                batches: Sequence[int], directions: int) -> tuple:
    """Stacked recurrence over validated inputs; return ``(hy, cy or None, ys)``."""
    train = _config.config.train and dropout_ratio > 0
    x_all = _ops.concat(list(xs), axis=0)
    hy, cy = [], []
    ys: Any = None
    for layer in range(n_layers):
        dir_outs = []
        for d in range(directions):
            k = layer * directions + d
            inp = dropout(x_all, dropout_ratio) if layer > 0 and train else x_all
            wxt, bx, params = cell.prepare(ws[k], bs[k])
            xw = matmul(inp, wxt) + bx
            h, c, outs = _one_direction(cell, xw, batches, hx[k],
                                        cx[k] if cell.use_cell else None, params, d == 1)
            hy.append(h)
            cy.append(c)
            dir_outs.append(outs)
        if layer == n_layers - 1 and directions == 1:
            ys = tuple(dir_outs[0])
            break
        joined = [_ops.concat(outs, axis=0) for outs in dir_outs]
        x_all = _ops.concat(joined, axis=1)
    if ys is None:
        starts = [0]
        for b in batches:
            starts.append(starts[-1] + b)
        ys = tuple(x_all[starts[t]:starts[t + 1]] for t in range(len(batches)))
    return stack(hy), (stack(cy) if cell.use_cell else None), ys


def _n_step_rnn_base(func: str, n_layers: int, dropout_ratio: float, hx: Any,
                     ws: Sequence[Sequence[Any]], bs: Sequence[Sequence[Any]],
                     xs: Sequence[Any], activation: str, directions: int,
                     kwargs: dict) -> tuple:
    _ops.check_kwargs(func, kwargs)
    if activation not in ('tanh', 'relu'):
        raise ValueError(f"{func}: argument activation: expected 'tanh' or 'relu', "
                         f'got {activation!r}')
    cell = _ElmanCell(tanh if activation == 'tanh' else relu)
    batches = check_inputs(func, cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                           directions)
    hy, _, ys = n_step_impl(cell, n_layers, dropout_ratio, hx, None, ws, bs, xs, batches,
                            directions)
    return hy, ys


def n_step_rnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
               bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str = 'tanh',
               **kwargs: Any) -> tuple:
    """Stacked uni-directional Elman RNN over variable-length sequences.

    For each layer, :math:`h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)` with :math:`f` = tanh or
    ReLU; the input of layer ``k > 0`` is the output of layer ``k - 1``, passed through dropout
    with ``dropout_ratio`` when ``chainlet.config.train`` is on.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio between layers, in ``[0, 1)``.
        hx: Initial hidden states, shape ``(S, B, N)``.
        ws: ``S`` lists of two matrices: ``ws[k][0]`` is ``(N, I)`` for ``k = 0`` and ``(N, N)``
            otherwise, ``ws[k][1]`` is ``(N, N)``.
        bs: ``S`` lists of two biases of shape ``(N,)``.
        xs: Time-major list of inputs: ``xs[t]`` has shape ``(B_t, I)`` with ``B_t`` not
            increasing in ``t`` (sort sequences by decreasing length, then transpose).
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        Tuple ``(hy, ys)``: the last hidden states ``(S, B, N)`` (for a sequence that ends early,
        its state at its own last step) and a tuple of the last layer's outputs ``ys[t]`` of
        shape ``(B_t, N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.ones((2, 3), np.float32), np.ones((1, 3), np.float32)]
        >>> hx = np.zeros((1, 2, 4), np.float32)
        >>> ws = [[np.full((4, 3), 0.1, np.float32), np.zeros((4, 4), np.float32)]]
        >>> bs = [[np.zeros(4, np.float32), np.zeros(4, np.float32)]]
        >>> hy, ys = F.n_step_rnn(1, 0.0, hx, ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 4), [(2, 4), (1, 4)])
    """
    return _n_step_rnn_base('n_step_rnn', n_layers, dropout_ratio, hx, ws, bs, xs, activation,
                            1, kwargs)


def n_step_birnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                 bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str = 'tanh',
                 **kwargs: Any) -> tuple:
    """Stacked bi-directional Elman RNN over variable-length sequences.

    Each layer runs :func:`n_step_rnn`'s recurrence forward (weights ``ws[2k]``) and backward in
    time (``ws[2k + 1]``); its output at time ``t`` is ``[h^f_t; h^b_t]`` of size ``2N``, which
    is the input of the next layer.

    Args:
        n_layers: Number of layers ``S``.
        dropout_ratio: Dropout ratio between layers, in ``[0, 1)``.
        hx: Initial hidden states, shape ``(2S, B, N)`` (``hx[2k]`` forward, ``hx[2k+1]``
            backward).
        ws: ``2S`` lists of two matrices: ``ws[k][0]`` is ``(N, I)`` for ``k < 2``, ``(N, 2N)``
            otherwise; ``ws[k][1]`` is ``(N, N)``.
        bs: ``2S`` lists of two biases of shape ``(N,)``.
        xs: Time-major list of inputs ``(B_t, I)`` with ``B_t`` not increasing.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        Tuple ``(hy, ys)``: ``hy`` of shape ``(2S, B, N)`` and ``ys[t]`` of shape
        ``(B_t, 2N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> xs = [np.ones((2, 3)), np.ones((1, 3))]
        >>> ws = [[np.ones((4, 3)), np.ones((4, 4))] for _ in range(2)]
        >>> bs = [[np.zeros(4), np.zeros(4)] for _ in range(2)]
        >>> hy, ys = F.n_step_birnn(1, 0.0, np.zeros((2, 2, 4)), ws, bs, xs)
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 4), [(2, 8), (1, 8)])
    """
    return _n_step_rnn_base('n_step_birnn', n_layers, dropout_ratio, hx, ws, bs, xs,
                            activation, 2, kwargs)


def n_step_rnn_base(n_layers: int, dropout_ratio: float, hx: Any, ws: Sequence[Sequence[Any]],
                    bs: Sequence[Sequence[Any]], xs: Sequence[Any], activation: str,
                    use_bi_direction: bool, **kwargs: Any) -> tuple:
    """:func:`n_step_rnn` or :func:`n_step_birnn`, chosen by ``use_bi_direction``.

    Chainer's common entry point of the two; the arguments and results are theirs.
    """
    name = 'n_step_birnn' if use_bi_direction else 'n_step_rnn'
    return _n_step_rnn_base(name, n_layers, dropout_ratio, hx, ws, bs, xs, activation,
                            2 if use_bi_direction else 1, kwargs)
