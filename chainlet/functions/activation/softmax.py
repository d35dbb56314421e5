"""Softmax along an axis."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.activation.log_softmax import check_softmax_axis
from chainlet.variable import Variable


class Softmax(FunctionNode):
    """``y = exp(x - max) / sum(exp(x - max))``; the output is retained for backward."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def _check_arrays(self, in_data):
        type_check.float_input('softmax', 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_outputs((0,))
        if x.size == 0:
            return xp.array(x, copy=True),
        # Subtracting the maximum keeps every exponent <= 0: no overflow for any input.
        y = x - x.max(axis=self.axis, keepdims=True)
        xp.exp(y, out=y)
        y /= y.sum(axis=self.axis, keepdims=True)
        return y,

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return SoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class SoftmaxGrad(FunctionNode):
    """``gx = y * gy - y * sum(y * gy, axis)``; differentiable in ``y`` and ``gy``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        y, gy = inputs
        self.retain_inputs((0, 1))
        gx = y * gy
        s = gx.sum(axis=self.axis, keepdims=True)
        gx -= y * s
        return gx,

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.sum import sum as sum_
        y, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        axis = self.axis
        # With S = sum(y*gy) and T = sum(ggx*y) over the axis:
        #   d/dy  = gy * (ggx - T) - ggx * S,   d/dgy = y * (ggx - T).
        centred = ggx - sum_(ggx * y, axis, keepdims=True)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy * centred - ggx * sum_(y * gy, axis, keepdims=True))
            else:
                ret.append(y * centred)
        return tuple(ret)


def softmax(x: Any, axis: int = 1) -> Variable:
    """Softmax along ``axis``: :math:`y_i = e^{x_i} / \\sum_j e^{x_j}`.

    The maximum along ``axis`` is subtracted first, so large inputs do not overflow.

    Args:
        x: Variable or array of floats with at least one dimension.
        axis: Axis over which the probabilities sum to one.

    Returns:
        Variable of the same shape and dtype as ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.softmax(np.array([[0.0, np.log(3.0)], [1e4, 1e4]])).array
        array([[0.25, 0.75],
               [0.5 , 0.5 ]])
    """
    axis = check_softmax_axis('softmax', x, axis)
    return Softmax(axis).apply((x,))[0]
