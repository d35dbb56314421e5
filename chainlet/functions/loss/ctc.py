"""Connectionist Temporal Classification (CTC) loss.

The forward (alpha) and backward (beta) variables are computed in log space, vectorised over
the batch and the positions of the blank-extended label sequence; only the time steps are a
Python loop. The scores are normalised with a softmax inside, and the gradient is taken with
respect to the scores, which avoids dividing by tiny probabilities.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.log_softmax import log_softmax_array
from chainlet.functions.loss._common import check_reduce, data_of
from chainlet.variable import Variable

_FUNC = 'connectionist_temporal_classification'
# Log of "probability zero": finite so that no inf - inf = nan appears in the recursions.
_NEG = -1e30


def _shift(a: Any, k: int, xp: Any) -> Any:
    """Shift along the last axis by ``k`` (right for ``k > 0``), filling with ``_NEG``."""
    out = xp.full(a.shape, _NEG, a.dtype)
    if k > 0:
        out[..., k:] = a[..., :-k]
    else:
        out[..., :k] = a[..., -k:]
    return out


def _logaddexp3(a: Any, b: Any, c: Any, xp: Any) -> Any:
    m = xp.maximum(xp.maximum(a, b), c)
    return m + xp.log(xp.exp(a - m) + xp.exp(b - m) + xp.exp(c - m))


class ConnectionistTemporalClassification(FunctionNode):
    """CTC loss; inputs are ``(t, x_0, ..., x_{T-1})``. Not differentiable twice.

    The alpha table and the log-softmax of the scores are kept on the node between forward
    and backward: the beta recursion in backward needs both, and recomputing them would
    double the cost of the loss.
    """

    def __init__(self, blank_symbol: int, input_length: Any, label_length: Any,
                 reduce: str) -> None:
        self.blank_symbol = blank_symbol
        self.input_length = input_length
        self.label_length = label_length
        self.reduce = reduce

    def _check_arrays(self, in_data):
        t, x0 = in_data[0], in_data[1]
        type_check.argument(_FUNC, 't', t, kind='i', ndim=2)
        type_check.argument(_FUNC, 'x[0]', x0, kind='f', ndim=2)
        for i, x in enumerate(in_data[2:], 1):
            type_check.argument(_FUNC, f'x[{i}]', x, dtype=x0.dtype, shape=x0.shape)
        if t.shape[0] != x0.shape[0]:
            raise type_check.fail(_FUNC, 't', f'shape ({x0.shape[0]}, *) (batch size of x)',
                                  str(t.shape))

    def _lengths(self, xp: Any, batch: int, n_time: int, n_label: int) -> tuple:
        in_len = self.input_length
        lab_len = self.label_length
        in_len = xp.full(batch, n_time) if in_len is None else xp.asarray(in_len)
        lab_len = xp.full(batch, n_label) if lab_len is None else xp.asarray(lab_len)
        for name, a, hi, lo in (('input_length', in_len, n_time, 1),
                                ('label_length', lab_len, n_label, 0)):
            if a.shape != (batch,) or a.dtype.kind not in 'iu':
                raise type_check.fail(_FUNC, name, f'an integer array of shape ({batch},)',
                                      f'shape {a.shape}, dtype {a.dtype}')
            if batch and not bool(((a >= lo) & (a <= hi)).all()):
                raise ValueError(f'{_FUNC}: argument {name}: expected values in [{lo}, {hi}], '
                                 f'got {a.tolist()}')
        return in_len.astype(numpy.int64), lab_len.astype(numpy.int64)

    def forward(self, inputs):
        t, xs = inputs[0], inputs[1:]
        xp = backend.get_array_module(*inputs)
        dtype = xs[0].dtype
        cdtype = numpy.float64 if dtype == numpy.float64 else numpy.float32
        n_time, (batch, n_vocab), n_label = len(xs), xs[0].shape, t.shape[1]
        blank = self.blank_symbol
        in_len, lab_len = self._lengths(xp, batch, n_time, n_label)
        n_pos = 2 * n_label + 1
        path_len = 2 * lab_len + 1
        pos = xp.arange(n_pos)
        on_path = pos[None, :] < path_len[:, None]                      # (B, S)
        path = xp.full((batch, n_pos), blank, dtype=numpy.int64)
        path[:, 1::2] = t
        path = xp.where(on_path, path, blank)
        if batch and not bool(((path >= 0) & (path < n_vocab)).all()):
            raise ValueError(f'{_FUNC}: argument t: expected labels in [0, {n_vocab}) within '
                             f'label_length')
        # A label may be reached by skipping the blank before it unless it repeats the
        # previous label.
        skip = xp.zeros((batch, n_pos), dtype=bool)
        skip[:, 2:] = (path[:, 2:] != blank) & (path[:, 2:] != path[:, :-2])

        log_y = log_softmax_array(xp.stack(xs).astype(cdtype, copy=False), 2)   # (T, B, V)
        lp = xp.take_along_axis(log_y, xp.broadcast_to(path[None], (n_time,) + path.shape), 2)
        lp = xp.where(on_path[None], lp, _NEG)                        # (T, B, S)

        alpha = xp.full((n_time, batch, n_pos), _NEG, cdtype)
        alpha[0, :, :2] = lp[0, :, :2]
        for i in range(1, n_time):
            prev = alpha[i - 1]
            alpha[i] = _logaddexp3(prev, _shift(prev, 1, xp),
                                   xp.where(skip, _shift(prev, 2, xp), _NEG), xp) + lp[i]
        # log p(t | x): the path ends at the last label or at the final blank.
        last = alpha[in_len - 1, xp.arange(batch)]                     # (B, S)
        end = (pos[None, :] == path_len[:, None] - 1) | (pos[None, :] == path_len[:, None] - 2)
        ends = xp.where(end, last, _NEG)
        m = ends.max(axis=1, keepdims=True)
        log_p = (m + xp.log(xp.exp(ends - m).sum(axis=1, keepdims=True)))[:, 0]
        self._cache = (log_y, lp, alpha, log_p, path, skip, end, in_len)

        loss = -log_p
        if self.reduce == 'mean':
            loss = loss.mean() if batch else xp.zeros((), cdtype)
        # An impossible alignment (labels too long for the input) gives a loss of about 1e30,
        # which is inf in float16: that overflow is the intended result.
        with numpy.errstate(over='ignore'):
            return xp.asarray(loss).astype(dtype),

    def backward(self, indexes, grad_outputs):
        log_y, lp, alpha, log_p, path, skip, end, in_len = self._cache
        self._cache = None
        xp = backend.get_array_module(log_y)
        n_time, batch, n_vocab = log_y.shape
        n_pos = path.shape[1]
        skip_from = _shift(skip.astype(log_y.dtype), -2, xp) > 0     # s -> s + 2 allowed

        # beta[i, b, s]: log-probability of finishing the path from (i, s), excluding the
        # emission at i. It starts at each sample's own last frame.
        beta = xp.full((n_time, batch, n_pos), _NEG, log_y.dtype)
        start = xp.where(end, 0.0, _NEG).astype(log_y.dtype)
        for i in range(n_time - 1, -1, -1):
            if i == n_time - 1:
                cur = xp.full((batch, n_pos), _NEG, log_y.dtype)
            else:
                nxt = beta[i + 1] + lp[i + 1]
                cur = _logaddexp3(nxt, _shift(nxt, -1, xp),
                                  xp.where(skip_from, _shift(nxt, -2, xp), _NEG), xp)
            at_end = (in_len - 1 == i)[:, None]
            after = (in_len - 1 < i)[:, None]
            beta[i] = xp.where(at_end, start, xp.where(after, _NEG, cur))

        # Occupancy of each (time, position); zero for samples whose labels cannot be aligned
        # (masked before exp, where alpha + beta - log_p could overflow).
        feasible = (log_p > _NEG / 2)[None, :, None]
        occupancy = xp.exp(xp.where(feasible, alpha + beta - log_p[None, :, None], _NEG))
        one_hot = (path[:, :, None] == xp.arange(n_vocab)).astype(log_y.dtype)   # (B, S, V)
        label_mass = xp.matmul(occupancy.transpose(1, 0, 2), one_hot).transpose(1, 0, 2)
        grad = xp.exp(log_y) - label_mass                              # (T, B, V)
        grad *= (xp.arange(n_time)[:, None] < in_len[None, :])[:, :, None]
        gloss = grad_outputs[0].array
        if self.reduce == 'mean':
            grad *= gloss.astype(grad.dtype) / max(batch, 1)
        else:
            grad *= gloss.astype(grad.dtype)[None, :, None]
        dtype = gloss.dtype
        # Bare arrays: the engine makes a second differentiation through them raise.
        return (None,) + tuple([grad[i].astype(dtype) for i in range(n_time)])


def connectionist_temporal_classification(
        x: Sequence, t: Any, blank_symbol: int, input_length: Optional[Any] = None,
        label_length: Optional[Any] = None, reduce: str = 'mean') -> Variable:
    """CTC loss, :math:`-\\log p(t \\mid x)` summed over all alignments of the labels.

    A softmax over the vocabulary is applied to each ``x[i]`` inside the function, so pass
    unnormalised scores. An alignment emits one symbol per time step; removing repeats and
    then blanks must give the label sequence.

    Args:
        x: List (or tuple) of ``T`` Variables or arrays of shape ``(B, V)``, the scores at
            each time step.
        t: Integer labels of shape ``(B, L)`` with values in ``[0, V)``, not ``blank_symbol``.
        blank_symbol: Index of the blank in ``[0, V)``.
        input_length: Optional integer array ``(B,)``: valid time steps per sample (in
            ``[1, T]``); later steps are ignored and get zero gradient. Default: all ``T``.
        label_length: Optional integer array ``(B,)``: valid labels per sample (in
            ``[0, L]``). Default: all ``L``.
        reduce: ``'mean'`` (mean over the batch; a scalar) or ``'no'`` (shape ``(B,)``).

    Returns:
        Variable of ``x``'s dtype, differentiable once in ``x``. An impossible alignment (more
        labels than time steps allow) gives a loss of about ``1e30``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = [np.zeros((1, 3), np.float32) for _ in range(2)]
        >>> t = np.array([[1]], np.int32)
        >>> F.connectionist_temporal_classification(x, t, 0).array  # -log(3 / 9)
        array(1.0986123, dtype=float32)
    """
    if isinstance(x, (str, bytes)) or not isinstance(x, Sequence) or len(x) == 0:
        raise TypeError(f'{_FUNC}: argument x: expected a non-empty list of Variables, got '
                        f'{type(x).__name__}')
    if isinstance(blank_symbol, bool) or not isinstance(blank_symbol, (int, numpy.integer)):
        raise TypeError(f'{_FUNC}: argument blank_symbol: expected an int, got '
                        f'{type(blank_symbol).__name__}')
    n_vocab = x[0].shape[1] if len(x[0].shape) == 2 else None
    if blank_symbol < 0 or (n_vocab is not None and blank_symbol >= n_vocab):
        raise ValueError(f'{_FUNC}: argument blank_symbol: expected a value in [0, {n_vocab}), '
                         f'got {blank_symbol}')
    check_reduce(_FUNC, reduce, ('mean', 'no'))
    func = ConnectionistTemporalClassification(
        int(blank_symbol), None if input_length is None else data_of(input_length),
        None if label_length is None else data_of(label_length), reduce)
    return func.apply((data_of(t),) + tuple(x))[0]
