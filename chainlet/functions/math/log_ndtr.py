"""``log_ndtr``: the logarithm of the standard normal CDF (SciPy's ``log_ndtr``)."""
from __future__ import annotations

import math
from typing import Any

from chainlet.functions.math._special import UnarySpecial
from chainlet.variable import Variable

_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


class LogNdtr(UnarySpecial):
    """``y = ln Phi(x)``; ``dy/dx = exp(-x^2 / 2 - y) / sqrt(2 pi)``."""

    name = 'log_ndtr'
    scipy_name = 'log_ndtr'
    retain = ('x', 'y')

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        # The ratio pdf / cdf in log space: no underflow far in the left tail.
        return grad_outputs[0] * exp(-0.5 * (x * x) - y - _LOG_SQRT_2PI),


def log_ndtr(x: Any) -> Variable:
    """Elementwise logarithm of the standard normal CDF, :math:`\\ln \\Phi(x)`.

    Accurate far in the left tail, where ``log(ndtr(x))`` would be ``log(0)``.

    Computed with ``scipy.special.log_ndtr`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.log_ndtr`` on the GPU.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, all values ``<= 0``.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.log_ndtr(np.array([-10.0, 0.0])).array
        array([-53.23128515,  -0.69314718])
    """
    return LogNdtr().apply((x,))[0]
