"""``square``: elementwise square."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Square(FunctionNode):
    """``y = x^2``; ``dy/dx = 2 x``."""

    def _check_arrays(self, in_data):
        type_check.float_input('square', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).square(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * x * 2.0,


def square(x: Any) -> Variable:
    """Elementwise square, :math:`y = x^2`.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.square(np.array([-3.0, 0.5], np.float32)).array
        array([9.  , 0.25], dtype=float32)
    """
    return Square().apply((x,))[0]
