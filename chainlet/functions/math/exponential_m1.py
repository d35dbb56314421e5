"""``expm1``: exponential minus one, accurate near zero."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Expm1(FunctionNode):
    """``y = exp(x) - 1``; ``dy/dx = exp(x) = y + 1``, so the output is retained."""

    def _check_arrays(self, in_data):
        type_check.float_input('expm1', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_outputs((0,))
        return backend.get_array_module(inputs[0]).expm1(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (y + 1.0),


def expm1(x: Any) -> Variable:
    """Elementwise :math:`y = e^x - 1`, without the cancellation of ``exp(x) - 1`` near 0.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.expm1(np.array([0.0, 1e-10])).array
        array([0.e+00, 1.e-10])
    """
    return Expm1().apply((x,))[0]
