"""``diagonal``: take a diagonal of an array."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_int, normalize_axis
from chainlet.variable import Variable


class Diagonal(FunctionNode):
    """``numpy.diagonal``; the gradient is written back onto the diagonal of zeros."""

    def __init__(self, offset: int, axis1: int, axis2: int) -> None:
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        self._dtype = x.dtype
        xp = backend.get_array_module(x)
        return xp.diagonal(x, self.offset, self.axis1, self.axis2),

    def backward(self, indexes, grad_outputs):
        return DiagonalGrad(self._in_shape, self._dtype, self.offset, self.axis1,
                            self.axis2).apply(grad_outputs)


class DiagonalGrad(FunctionNode):
    """Place ``gy`` on a diagonal of a zero array of the input's shape; its gradient is the
    diagonal again."""

    def __init__(self, shape: tuple, dtype: Any, offset: int, axis1: int, axis2: int) -> None:
        self.shape = shape
        self.dtype = dtype
        self.offset = offset
        self.axis1 = axis1
        self.axis2 = axis2

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, self.dtype)
        # A writable view with the two axes last, indexed by the diagonal's coordinates.
        view = xp.moveaxis(gx, (self.axis1, self.axis2), (-2, -1))
        k = gy.shape[-1]
        rows = xp.arange(k) + max(-self.offset, 0)
        cols = xp.arange(k) + max(self.offset, 0)
        view[..., rows, cols] = gy
        return gx,

    def backward(self, indexes, grad_outputs):
        return Diagonal(self.offset, self.axis1, self.axis2).apply(grad_outputs)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """Take the diagonal of ``x`` over the axes ``axis1`` and ``axis2`` (``numpy.diagonal``).

    Args:
        x: Variable or array of ndim >= 2.
        offset: Offset from the main diagonal (positive: above it, negative: below).
        axis1: First axis of the 2-D sub-arrays.
        axis2: Second axis, different from ``axis1``.

    Returns:
        Variable whose shape is ``x.shape`` without ``axis1`` and ``axis2``, plus a last axis
        holding the diagonal (a read-only view of ``x`` on NumPy).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.diagonal(np.arange(9.0).reshape(3, 3), offset=1).array
        array([1., 5.])
    """
    data = check_array('diagonal', 'x', x)
    type_check.argument('diagonal', 'x', data, min_ndim=2)
    offset = check_int('diagonal', 'offset', offset)
    a1 = normalize_axis('diagonal', 'axis1', axis1, data.ndim)
    a2 = normalize_axis('diagonal', 'axis2', axis2, data.ndim)
    if a1 == a2:
        raise ValueError(f'diagonal: arguments axis1 and axis2: expected different axes, got '
                         f'{axis1} and {axis2}')
    return Diagonal(offset, a1, a2).apply((x,))[0]
