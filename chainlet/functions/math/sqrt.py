"""Square root ``sqrt(x)``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.rsqrt import rsqrt  # noqa: F401  (Chainer defines it here)
from chainlet.variable import Variable


class Sqrt(FunctionNode):
    """``y = sqrt(x)``; ``dy/dx = 1 / (2 y)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('sqrt', 'x', in_data[0])

    def forward(self, inputs):
        xp = backend.get_array_module(inputs[0])
        self.retain_outputs((0,))
        return xp.sqrt(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] / (y * 2.0),


def sqrt(x: Any) -> Variable:
    """Elementwise square root, :math:`y = \\sqrt{x}`.

    Args:
        x: Variable or array of non-negative floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sqrt(np.array([4.0, 9.0])).array
        array([2., 3.])
    """
    return Sqrt().apply((x,))[0]
