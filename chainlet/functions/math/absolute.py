"""Absolute value ``|x|``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Absolute(FunctionNode):
    """``y = |x|``; the gradient is ``sign(x) * gy`` (zero at 0, as in Chainer and NumPy)."""

    @property
    def label(self) -> str:
        return '|_|'

    def _check_arrays(self, in_data):
        type_check.float_input('absolute', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).abs(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        return grad_outputs[0] * xp.sign(x.array),


def absolute(x: Any) -> Variable:
    """Elementwise absolute value, :math:`y = |x|`.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.absolute(np.array([-1.5, 2.0])).array
        array([1.5, 2. ])
    """
    return Absolute().apply((x,))[0]
