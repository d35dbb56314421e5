"""``tan``: elementwise tangent."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Tan(FunctionNode):
    """``y = tan(x)``; ``dy/dx = 1 + y^2``, so the output is retained."""

    @property
    def label(self) -> str:
        return 'tan'

    def _check_arrays(self, in_data):
        type_check.float_input('tan', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_outputs((0,))
        return backend.get_array_module(inputs[0]).tan(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y * y + 1.0),


def tan(x: Any) -> Variable:
    """Elementwise tangent, :math:`y = \\tan x`.

    Args:
        x: Variable or array of floats (radians), any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.tan(np.array([0.0, np.pi / 4])).array
        array([0., 1.])
    """
    return Tan().apply((x,))[0]
