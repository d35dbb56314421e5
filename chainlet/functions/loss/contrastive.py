"""Contrastive loss for pairs of embeddings (siamese networks)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._common import check_reduce, data_of, reduction_dtype
from chainlet.variable import Variable

_FUNC = 'contrastive'


class Contrastive(FunctionNode):
    """``(y d^2 + (1 - y) max(margin - d, 0)^2) / 2`` with ``d = ||x0 - x1||``."""

    def __init__(self, margin: float, reduce: str) -> None:
        self.margin = margin
        self.reduce = reduce

    def _check_arrays(self, in_data):
        x0, x1, y = in_data
        type_check.argument(_FUNC, 'x0', x0, kind='f', ndim=2)
        type_check.argument(_FUNC, 'x1', x1, dtype=x0.dtype, shape=x0.shape)
        type_check.argument(_FUNC, 'y', y, kind='iu', shape=x0.shape[:1])

    def forward(self, inputs):
        x0, x1, y = inputs
        xp = backend.get_array_module(x0)
        if not bool(((y == 0) | (y == 1)).all()):
            raise ValueError(f'{_FUNC}: argument y: expected labels 0 or 1, got '
                             f'{y.ravel()[:5].tolist()}')
        self.retain_inputs((0, 1))
        self._y = y
        diff = x0 - x1
        dist_sq = xp.square(diff).sum(axis=1)
        gap = xp.maximum(self.margin - xp.sqrt(dist_sq), 0)
        yf = y.astype(x0.dtype)
        loss = (yf * dist_sq + (1 - yf) * xp.square(gap)) * xp.asarray(0.5, x0.dtype)
        if self.reduce == 'mean':
            total = loss.sum(dtype=reduction_dtype(x0.dtype))  # float16 sums overflow past 65504
            return xp.asarray(total / max(len(x0), 1), dtype=x0.dtype),
        return loss.astype(x0.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.sqrt import sqrt
        from chainlet.functions.math.sum import sum as sum_
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        xp = backend.get_array_module(x0.array)
        dtype = x0.dtype
        diff = x0 - x1
        dist_sq = sum_(diff * diff, axis=1)
        zero = (dist_sq.array == 0).astype(dtype)
        # At d == 0 the direction is undefined and diff is 0 anyway: use d = 1 to avoid 0/0.
        dist = sqrt(dist_sq + zero)
        yf = self._y.astype(dtype)
        pushed = ((1 - yf) * (self.margin - xp.sqrt(dist_sq.array) > 0)).astype(dtype)
        # d/dx0: diff for similar pairs, (1 - margin / d) diff for dissimilar ones inside the
        # margin, 0 otherwise.
        coef = (self.margin / dist) * (-pushed * (1 - zero)) + (yf + pushed)
        if self.reduce == 'mean':
            g = coef * (gy * (1.0 / max(len(yf), 1)))
        else:
            g = coef * gy
        gx0 = diff * g.reshape((len(yf), 1))
        return tuple([gx0 if i == 0 else -gx0 if i == 1 else None for i in indexes])


def contrastive(x0: Any, x1: Any, y: Any, margin: float = 1,
                reduce: str = 'mean') -> Variable:
    """Contrastive loss of pairs: :math:`L_n = \\frac12 (y_n d_n^2 + (1 - y_n)
    \\max(m - d_n, 0)^2)` with :math:`d_n = \\|x_{0n} - x_{1n}\\|_2` and margin :math:`m`.

    Args:
        x0: Float embeddings of shape ``(N, K)``.
        x1: Embeddings of the same shape and dtype.
        y: Integer labels of shape ``(N,)``: 1 for similar pairs, 0 for dissimilar ones.
        margin: Positive margin for dissimilar pairs.
        reduce: ``'mean'`` (sum divided by ``N``; a scalar) or ``'no'`` (shape ``(N,)``).

    Returns:
        Variable of the inputs' dtype. Differentiable in ``x0`` and ``x1``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x0 = np.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], np.float32)
        >>> x1 = np.array([[-1.0, 3.0, 1.0], [3.5, 0.5, -2.0]], np.float32)
        >>> y = np.array([1, 0], np.int32)
        >>> F.contrastive(x0, x1, y).array
        array(0.3125, dtype=float32)
        >>> F.contrastive(x0, x1, y, margin=3.0, reduce='no').array
        array([0.625 , 0.0807714...], dtype=float32)
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin > 0:
        raise ValueError(f'{_FUNC}: argument margin: expected a positive number, got {margin!r}')
    check_reduce(_FUNC, reduce, ('mean', 'no'))
    return Contrastive(float(margin), reduce).apply((x0, x1, data_of(y)))[0]
