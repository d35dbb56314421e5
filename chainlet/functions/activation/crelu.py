"""Concatenated rectified linear unit: ``(relu(x), relu(-x))`` stacked along an axis.

The two halves are written into one preallocated output so the forward makes no intermediate
copies; backward splits ``gy`` back into its halves and only needs the sign of ``x``.
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class CReLU(FunctionNode):
    """``y = concat(max(x, 0), max(-x, 0), axis)``."""

    def __init__(self, axis: int = 1) -> None:
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f'crelu: argument axis: expected an int, got {type(axis).__name__}')
        self.axis = axis

    def _check_arrays(self, in_data):
        type_check.count('crelu', in_data, 1)
        x, = in_data
        type_check.argument('crelu', 'x', x, kind='f')
        if not -x.ndim <= self.axis < x.ndim:
            need = self.axis + 1 if self.axis >= 0 else -self.axis
            raise type_check.fail('crelu', 'x', f'ndim >= {need} (axis={self.axis})',
                                  f'shape {x.shape}')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        shape = list(x.shape)
        shape[self.axis] *= 2
        y = xp.empty(tuple(shape), x.dtype)
        pos, neg = xp.split(y, 2, axis=self.axis)
        zero = x.dtype.type(0)
        xp.maximum(x, zero, out=pos)
        xp.maximum(-x, zero, out=neg)
        self.retain_inputs((0,))
        return y,

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0].array
        return CReLUGrad(x > 0, x < 0, self.axis).apply(grad_outputs)


class CReLUGrad(FunctionNode):
    """``gx = gy_pos * (x > 0) - gy_neg * (x < 0)``; linear in ``gy``, and the mask of ``x``
    is a constant (the second derivative of CReLU is zero almost everywhere)."""

    def __init__(self, pos: Any, neg: Any, axis: int) -> None:
        self.pos = pos
        self.neg = neg
        self.axis = axis

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        g_pos, g_neg = xp.split(gy, 2, axis=self.axis)
        return xp.where(self.pos, g_pos, xp.where(self.neg, -g_neg, gy.dtype.type(0))),

    def backward(self, indexes, grad_outputs):
        return CReLUGradGrad(self.pos, self.neg, self.axis).apply(grad_outputs)


class CReLUGradGrad(FunctionNode):
    """Transpose of :class:`CReLUGrad`: ``ggy = concat(ggx * (x > 0), -ggx * (x < 0))``."""

    def __init__(self, pos: Any, neg: Any, axis: int) -> None:
        self.pos = pos
        self.neg = neg
        self.axis = axis

    def forward(self, inputs):
        ggx, = inputs
        xp = backend.get_array_module(ggx)
        zero = ggx.dtype.type(0)
        return xp.concatenate((xp.where(self.pos, ggx, zero), xp.where(self.neg, -ggx, zero)),
                              axis=self.axis),

    def backward(self, indexes, grad_outputs):
        return CReLUGrad(self.pos, self.neg, self.axis).apply(grad_outputs)


def crelu(x: Any, axis: int = 1) -> Variable:
    """Concatenated rectified linear unit, :math:`y = (\\max(x, 0), \\max(-x, 0))`.

    The two halves are concatenated along ``axis``, so that axis doubles in length.

    Args:
        x: Variable or array of floats with ``ndim > axis`` (or ``ndim >= -axis``).
        axis: Axis along which the two halves are concatenated (default 1).

    Returns:
        Variable of ``x``'s dtype whose ``axis`` is twice as long as ``x``'s.

    Shape:
        ``(s_1, ..., s_axis, ..., s_N)`` to ``(s_1, ..., 2 s_axis, ..., s_N)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.crelu(np.array([[-1.0, 0.0], [2.0, -3.0]], np.float32)).array
        array([[0., 0., 1., 0.],
               [2., 0., 0., 3.]], dtype=float32)
    """
    return CReLU(axis).apply((x,))[0]
