"""``ndtr``: the standard normal cumulative distribution function, without SciPy."""
from __future__ import annotations

import math
from typing import Any

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.erf import ndtr_array
from chainlet.variable import Variable

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


class Ndtr(FunctionNode):
    """``y = Phi(x)``; ``dy/dx = exp(-x^2 / 2) / sqrt(2 pi)``."""

    @property
    def label(self) -> str:
        return 'ndtr'

    def _check_arrays(self, in_data):
        type_check.count('ndtr', in_data, 1)
        type_check.float_input('ndtr', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return ndtr_array(inputs[0]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        return grad_outputs[0] * exp(-0.5 * (x * x)) * _INV_SQRT_2PI,


def ndtr(x: Any) -> Variable:
    """Elementwise standard normal CDF, :math:`\\Phi(x) = \\frac{1}{\\sqrt{2\\pi}}
    \\int_{-\\infty}^x e^{-t^2/2} dt`.

    Computed without SciPy, with full relative precision in the left tail.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``[0, 1]``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.ndtr(np.array([-1.0, 0.0, 1.0])).array
        array([0.15865525, 0.5       , 0.84134475])
    """
    return Ndtr().apply((x,))[0]
