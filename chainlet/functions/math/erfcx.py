"""``erfcx``: the scaled complementary error function ``exp(x^2) erfc(x)`` (SciPy's ``erfcx``)."""
from __future__ import annotations

import math
from typing import Any

from chainlet.functions.math import _special
from chainlet.functions.math._special import UnarySpecial
from chainlet.variable import Variable

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Erfcx(UnarySpecial):
    """``y = exp(x^2) erfc(x)``; ``dy/dx = 2 x y - 2 / sqrt(pi)``."""

    name = 'erfcx'
    scipy_name = 'erfcx'
    retain = ('x', 'y')

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (2 * x * y - _TWO_OVER_SQRT_PI),


def erfcx(x: Any) -> Variable:
    """Elementwise scaled complementary error function, :math:`e^{x^2} \\mathrm{erfc}(x)`.

    It stays finite for large positive ``x``, where ``erfc(x)`` underflows.

    Computed with ``scipy.special.erfcx`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.erfcx`` on the GPU.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, :math:`e^{x^2} \\mathrm{erfc}(x) > 0`.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.erfcx(np.array([0.0, 1.0, 30.0])).array
        array([1.        , 0.42758358, 0.01879589])
    """
    return Erfcx().apply((x,))[0]


__getattr__ = _special.module_getattr(__name__)  # available_cpu, as in Chainer
