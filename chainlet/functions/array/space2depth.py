"""``space2depth``: move spatial blocks into channels."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_int
from chainlet.variable import Variable


def check_factor(func: str, r: Any) -> int:
    r = check_int(func, 'r', r)
    if r <= 0:
        raise ValueError(f'{func}: argument r: expected a positive int, got {r}')
    return r


class Space2Depth(FunctionNode):
    """``(n, c, h*r, w*r) -> (n, r*r*c, h, w)``; the gradient is :class:`Depth2Space`."""

    def __init__(self, r: int) -> None:
        self.r = r

    def _check_arrays(self, in_data):
        X, = in_data
        type_check.argument('space2depth', 'X', X, kind='f', ndim=4)
        if X.shape[2] % self.r or X.shape[3] % self.r:
            raise ValueError(f'space2depth: argument X: expected height and width divisible by '
                             f'r={self.r}, got shape {X.shape}')

    def forward(self, inputs):
        X, = inputs
        xp = backend.get_array_module(X)
        n, c, h, w = X.shape
        r = self.r
        y = X.reshape(n, c, h // r, r, w // r, r).transpose(0, 3, 5, 1, 2, 4)
        return xp.ascontiguousarray(y).reshape(n, r * r * c, h // r, w // r),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.depth2space import Depth2Space
        return Depth2Space(self.r).apply(grad_outputs)


def space2depth(X: Any, r: int) -> Variable:
    """Rearrange each ``r x r`` spatial block into channels (the inverse of
    :func:`depth2space`).

    Output channel ``(i * r + j) * c + k`` at ``(y, x)`` holds input channel ``k`` at
    ``(y * r + i, x * r + j)``.

    Args:
        X: Float Variable or array of shape ``(n, c, h * r, w * r)``.
        r: Block size, a positive int.

    Returns:
        Variable of shape ``(n, c * r * r, h, w)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> X = np.arange(4.0).reshape(1, 1, 2, 2)
        >>> F.space2depth(X, 2).array.ravel()
        array([0., 1., 2., 3.])
        >>> F.space2depth(X, 2).shape
        (1, 4, 1, 1)
    """
    check_array('space2depth', 'X', X)
    return Space2Depth(check_factor('space2depth', r)).apply((X,))[0]
