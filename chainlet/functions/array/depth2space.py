"""``depth2space``: move channels into spatial blocks (sub-pixel shuffle)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable


class Depth2Space(FunctionNode):
    """``(n, r*r*c, h, w) -> (n, c, h*r, w*r)``; the gradient is :class:`Space2Depth`."""

    def __init__(self, r: int) -> None:
        self.r = r

    def _check_arrays(self, in_data):
        X, = in_data
        type_check.argument('depth2space', 'X', X, kind='f', ndim=4)
        if X.shape[1] % (self.r * self.r):
            raise ValueError(f'depth2space: argument X: expected a channel count divisible by '
                             f'r*r={self.r * self.r}, got shape {X.shape}')

    def forward(self, inputs):
        X, = inputs
        xp = backend.get_array_module(X)
        n, c, h, w = X.shape
        r = self.r
        oc = c // (r * r)
        y = X.reshape(n, r, r, oc, h, w).transpose(0, 3, 4, 1, 5, 2)
        return xp.ascontiguousarray(y).reshape(n, oc, h * r, w * r),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.space2depth import Space2Depth
        return Space2Depth(self.r).apply(grad_outputs)


def depth2space(X: Any, r: int) -> Variable:
    """Rearrange channels into ``r x r`` spatial blocks (pixel shuffle; the inverse of
    :func:`space2depth`).

    Args:
        X: Float Variable or array of shape ``(n, c * r * r, h, w)``.
        r: Block size, a positive int.

    Returns:
        Variable of shape ``(n, c, h * r, w * r)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> X = np.arange(4.0).reshape(1, 4, 1, 1)
        >>> F.depth2space(X, 2).array
        array([[[[0., 1.],
                 [2., 3.]]]])
    """
    from chainlet.functions.array.space2depth import check_factor
    check_array('depth2space', 'X', X)
    return Depth2Space(check_factor('depth2space', r)).apply((X,))[0]
