"""Sine and cosine."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.inverse_trigonometric import (  # noqa: F401  (as in Chainer)
    Arccos, Arcsin, Arctan, Arctan2, arccos, arcsin, arctan, arctan2)
from chainlet.functions.math.tangent import Tan, tan  # noqa: F401  (Chainer's module has them)
from chainlet.variable import Variable


class Sin(FunctionNode):
    """``y = sin(x)``."""

    @property
    def label(self) -> str:
        return 'sin'

    def _check_arrays(self, in_data):
        type_check.float_input('sin', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).sin(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * cos(x),


class Cos(FunctionNode):
    """``y = cos(x)``."""

    @property
    def label(self) -> str:
        return 'cos'

    def _check_arrays(self, in_data):
        type_check.float_input('cos', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).cos(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return -(grad_outputs[0] * sin(x)),


def sin(x: Any) -> Variable:
    """Elementwise sine.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sin(np.array([0.0])).array
        array([0.])
    """
    return Sin().apply((x,))[0]


def cos(x: Any) -> Variable:
    """Elementwise cosine.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.cos(np.array([0.0])).array
        array([1.])
    """
    return Cos().apply((x,))[0]
