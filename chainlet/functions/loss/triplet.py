"""Triplet loss for metric learning."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._common import check_reduce, reduction_dtype
from chainlet.variable import Variable

_FUNC = 'triplet'


class Triplet(FunctionNode):
    """``max(||a - p||^2 - ||a - n||^2 + margin, 0)`` per sample."""

    def __init__(self, margin: float, reduce: str) -> None:
        self.margin = margin
        self.reduce = reduce

    def _check_arrays(self, in_data):
        a, p, n = in_data
        type_check.argument(_FUNC, 'anchor', a, kind='f', ndim=2)
        type_check.argument(_FUNC, 'positive', p, dtype=a.dtype, shape=a.shape)
        type_check.argument(_FUNC, 'negative', n, dtype=a.dtype, shape=a.shape)

    def forward(self, inputs):
        a, p, n = inputs
        xp = backend.get_array_module(a)
        self.retain_inputs((0, 1, 2))
        dist = xp.square(a - p).sum(axis=1) - xp.square(a - n).sum(axis=1)
        loss = xp.maximum(dist + xp.asarray(self.margin, a.dtype), 0)
        self._active = (loss > 0).astype(a.dtype)
        if self.reduce == 'mean':
            total = loss.sum(dtype=reduction_dtype(a.dtype))  # float16 sums overflow past 65504
            return xp.asarray(total / max(len(a), 1), dtype=a.dtype),
        return loss,

    def backward(self, indexes, grad_outputs):
        a, p, n = self.get_retained_inputs()
        gy = grad_outputs[0]
        active = self._active.reshape(-1, 1)
        if self.reduce == 'mean':
            g = (gy * (2.0 / max(len(active), 1))) * active
        else:
            g = gy.reshape((len(active), 1)) * (2 * active)
        grads = {0: lambda: (n - p) * g, 1: lambda: (p - a) * g, 2: lambda: (a - n) * g}
        return tuple([grads[i]() for i in indexes])


def triplet(anchor: Any, positive: Any, negative: Any, margin: float = 0.2,
            reduce: str = 'mean') -> Variable:
    """Triplet loss, :math:`L_i = \\max(\\|a_i - p_i\\|^2 - \\|a_i - n_i\\|^2 + m, 0)`.

    Args:
        anchor: Float embeddings of shape ``(N, K)``.
        positive: Embeddings of the same class as the anchors, same shape and dtype.
        negative: Embeddings of other classes, same shape and dtype.
        margin: Positive margin :math:`m`.
        reduce: ``'mean'`` (a scalar) or ``'no'`` (shape ``(N,)``).

    Returns:
        Variable of the inputs' dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> a = np.array([[0.0, 0.0], [1.0, 1.0]])
        >>> p = np.array([[0.1, 0.0], [1.0, 2.0]])
        >>> n = np.array([[1.0, 0.0], [1.0, 1.5]])
        >>> F.triplet(a, p, n, reduce='no').array
        array([0.  , 0.95])
    """
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not margin > 0:
        raise ValueError(f'{_FUNC}: argument margin: expected a positive number, got {margin!r}')
    check_reduce(_FUNC, reduce, ('mean', 'no'))
    return Triplet(float(margin), reduce).apply((anchor, positive, negative))[0]
