"""``log1p``: natural logarithm of one plus the input, accurate near zero."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Log1p(FunctionNode):
    """``y = log(1 + x)``; ``dy/dx = 1 / (1 + x)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('log1p', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).log1p(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x + 1.0),


def log1p(x: Any) -> Variable:
    """Elementwise :math:`y = \\ln(1 + x)`, without the rounding loss of ``log(1 + x)`` near 0.

    Args:
        x: Variable or array of floats greater than ``-1``, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.log1p(np.array([0.0, 1e-10, np.e - 1])).array
        array([0.e+00, 1.e-10, 1.e+00])
    """
    return Log1p().apply((x,))[0]
