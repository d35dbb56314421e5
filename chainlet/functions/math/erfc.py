"""``erfc``: the complementary error function, without SciPy (see :mod:`.erf`)."""
from __future__ import annotations

import math
from typing import Any

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.erf import erfc_array
from chainlet.variable import Variable

_MINUS_TWO_OVER_SQRT_PI = -2.0 / math.sqrt(math.pi)


class Erfc(FunctionNode):
    """``y = erfc(x)``; ``dy/dx = -2 / sqrt(pi) exp(-x^2)``."""

    @property
    def label(self) -> str:
        return 'erfc'

    def _check_arrays(self, in_data):
        type_check.count('erfc', in_data, 1)
        type_check.float_input('erfc', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return erfc_array(inputs[0]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        return grad_outputs[0] * exp(-(x * x)) * _MINUS_TWO_OVER_SQRT_PI,


def erfc(x: Any) -> Variable:
    """Elementwise complementary error function, :math:`\\mathrm{erfc}(x) = 1 - \\mathrm{erf}(x)`.

    Computed without SciPy and with full relative precision in the right tail, where
    ``1 - erf(x)`` would cancel to zero.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``[0, 2]``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.erfc(np.array([0.0, 1.0, 6.0])).array
        array([1.00000000e+00, 1.57299207e-01, 2.15197367e-17])
    """
    return Erfc().apply((x,))[0]
