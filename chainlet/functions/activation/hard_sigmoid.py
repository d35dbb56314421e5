"""Piecewise-linear approximation of the sigmoid."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class HardSigmoid(FunctionNode):
    """``y = clip(0.2 * x + 0.5, 0, 1)``."""

    def _check_arrays(self, in_data):
        type_check.argument('hard_sigmoid', 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        dt = x.dtype.type
        self.retain_inputs((0,))
        y = xp.minimum(xp.maximum(x * dt(0.2) + dt(0.5), dt(0)), dt(1))
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return HardSigmoidGrad(x.array).apply((grad_outputs[0],))


class HardSigmoidGrad(FunctionNode):
    """``gx = 0.2 * gy`` on ``-2.5 < x < 2.5``, zero elsewhere; linear in ``gy``."""

    def __init__(self, x: Any) -> None:
        self.x = x

    def forward(self, inputs):
        gy, = inputs
        x = self.x
        inside = (x > -2.5) & (x < 2.5)
        return gy * gy.dtype.type(0.2) * inside,

    def backward(self, indexes, grad_outputs):
        return HardSigmoidGrad(self.x).apply((grad_outputs[0],))


def hard_sigmoid(x: Any) -> Variable:
    """Hard sigmoid, :math:`y = \\mathrm{clip}(0.2 x + 0.5, 0, 1)`, elementwise.

    The gradient is 0.2 on the open interval ``(-2.5, 2.5)`` and 0 outside.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``[0, 1]``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.hard_sigmoid(np.array([-3.0, 0.0, 1.0, 3.0], np.float32)).array
        array([0. , 0.5, 0.7, 1. ], dtype=float32)
    """
    return HardSigmoid().apply((x,))[0]
