"""Hyperbolic sine and cosine: ``sinh`` and ``cosh``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Sinh(FunctionNode):
    """``y = sinh(x)``; ``dy/dx = cosh(x)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('sinh', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).sinh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cosh(x),


class Cosh(FunctionNode):
    """``y = cosh(x)``; ``dy/dx = sinh(x)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('cosh', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).cosh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * sinh(x),


def sinh(x: Any) -> Variable:
    """Elementwise hyperbolic sine, :math:`y = (e^x - e^{-x}) / 2`.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sinh(np.array([0.0, 1.0])).array
        array([0.        , 1.17520119])
    """
    return Sinh().apply((x,))[0]


def cosh(x: Any) -> Variable:
    """Elementwise hyperbolic cosine, :math:`y = (e^x + e^{-x}) / 2`.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.cosh(np.array([0.0, 1.0])).array
        array([1.        , 1.54308063])
    """
    return Cosh().apply((x,))[0]
