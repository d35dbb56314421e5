"""``rsqrt``: reciprocal of the square root."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Rsqrt(FunctionNode):
    """``y = 1 / sqrt(x)``; ``dy/dx = -y^3 / 2``, so the output is retained."""

    def _check_arrays(self, in_data):
        type_check.float_input('rsqrt', 'x', in_data[0])

    def forward(self, inputs):
        xp = backend.get_array_module(inputs[0])
        self.retain_outputs((0,))
        return xp.reciprocal(xp.sqrt(inputs[0])),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y * y * y) * -0.5,


def rsqrt(x: Any) -> Variable:
    """Elementwise reciprocal square root, :math:`y = 1 / \\sqrt{x}`.

    Args:
        x: Variable or array of positive floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.rsqrt(np.array([4.0, 0.25])).array
        array([0.5, 2. ])
    """
    return Rsqrt().apply((x,))[0]
