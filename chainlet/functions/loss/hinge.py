"""Hinge loss for multi-class classification (one-vs-rest)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._common import (
    UnknownOptionError, check_labels, check_reduce, data_of, reduction_dtype)
from chainlet.variable import Variable

_FUNC = 'hinge'


def _signs(t: Any, shape: tuple, dtype: Any) -> Any:
    """``+1`` everywhere, ``-1`` at each sample's target class."""
    xp = backend.get_array_module(t)
    s = xp.ones(shape, dtype)
    s[xp.arange(shape[0]), t] = -1
    return s


class Hinge(FunctionNode):
    """``max(0, 1 - x_t)`` at the target and ``max(0, 1 + x_k)`` elsewhere, L1 or squared."""

    def __init__(self, norm: str, reduce: str) -> None:
        self.norm = norm
        self.reduce = reduce

    def _check_arrays(self, in_data):
        x, t = in_data
        type_check.argument(_FUNC, 'x', x, kind='f', ndim=2)
        type_check.argument(_FUNC, 't', t, kind='i', shape=x.shape[:1])

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        check_labels(_FUNC, t, x.shape[1])
        self.retain_inputs((0,))
        self._t = t
        h = xp.maximum(x * _signs(t, x.shape, x.dtype) + 1, 0)
        loss = h if self.norm == 'L1' else xp.square(h)
        if self.reduce == 'mean':
            total = loss.sum(dtype=reduction_dtype(x.dtype))  # float16 sums overflow past 65504
            return xp.asarray(total / max(len(x), 1), dtype=x.dtype),
        return loss,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = grad_outputs[0]
        if self.reduce == 'mean':
            gy = gy * (1.0 / max(len(x), 1))
        s = _signs(self._t, x.shape, x.dtype)
        active = (x.array * s + 1 > 0).astype(x.dtype)
        if self.norm == 'L1':
            # Piecewise linear: the slope is a constant (zero second derivative).
            gx = gy * (s * active)
        else:
            gx = (x * (2 * active) + 2 * s * active) * gy
        return gx, None


def hinge(x: Any, t: Any, norm: str = 'L1', reduce: str = 'mean') -> Variable:
    """One-vs-rest hinge loss, :math:`\\ell_{nk} = \\max(0, 1 - \\delta_{k t_n} x_{nk})^p` with
    :math:`\\delta = 1` at the target class and :math:`-1` elsewhere; ``p = 1`` (``'L1'``) or
    ``2`` (``'L2'``).

    Args:
        x: Float scores of shape ``(N, K)``.
        t: Integer labels of shape ``(N,)`` in ``[0, K)``.
        norm: ``'L1'`` or ``'L2'``.
        reduce: ``'mean'`` (sum divided by ``N``; a scalar) or ``'no'`` (shape ``(N, K)``).

    Returns:
        Variable of ``x``'s dtype. Differentiable in ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[0.5, -2.0], [0.2, 1.5]])
        >>> F.hinge(x, np.array([0, 1]), reduce='no').array
        array([[0.5, 0. ],
               [1.2, 0. ]])
    """
    if norm not in ('L1', 'L2'):
        raise UnknownOptionError(f"{_FUNC}: argument norm: expected 'L1' or 'L2', "
                                 f"got {norm!r}")
    check_reduce(_FUNC, reduce, ('mean', 'no'))
    return Hinge(norm, reduce).apply((x, data_of(t)))[0]
