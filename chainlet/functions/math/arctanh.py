"""``arctanh``: the inverse hyperbolic tangent."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Arctanh(FunctionNode):
    """``y = arctanh(x)``; ``dy/dx = 1 / (1 - x^2)``."""

    @property
    def label(self) -> str:
        return 'arctanh'

    def _check_arrays(self, in_data):
        type_check.count('arctanh', in_data, 1)
        type_check.float_input('arctanh', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).arctanh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (1 - x * x),


def arctanh(x: Any) -> Variable:
    """Elementwise inverse hyperbolic tangent, :math:`y = \\frac12 \\ln\\frac{1 + x}{1 - x}`.

    Args:
        x: Variable or array of floats in ``(-1, 1)`` (``+-1`` give ``+-inf``, outside NaN).

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.arctanh(np.array([0.0, 0.5])).array
        array([0.        , 0.54930614])
    """
    return Arctanh().apply((x,))[0]
