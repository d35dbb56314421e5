"""``ndtri``: the inverse of the standard normal CDF (SciPy's ``ndtri``)."""
from __future__ import annotations

import math
from typing import Any

from chainlet.functions.math import _special
from chainlet.functions.math._special import UnarySpecial
from chainlet.variable import Variable

_SQRT_2PI = math.sqrt(2.0 * math.pi)


class Ndtri(UnarySpecial):
    """``y = Phi^-1(x)``; ``dy/dx = sqrt(2 pi) exp(y^2 / 2)``."""

    name = 'ndtri'
    scipy_name = 'ndtri'
    retain = 'y'

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        y, = self.get_retained_outputs()
        return grad_outputs[0] * exp(0.5 * (y * y)) * _SQRT_2PI,


def ndtri(x: Any) -> Variable:
    """Elementwise inverse of the standard normal CDF (the probit function), :math:`\\Phi^{-1}(x)`.

    Computed with ``scipy.special.ndtri`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.ndtri`` on the GPU.

    Args:
        x: Variable or array of floats, any shape, values in ``[0, 1]``.

    Returns:
        Variable of the same shape and dtype, :math:`\\Phi^{-1}(x)` (``+-inf`` at ``1`` and ``0``).

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.ndtri(np.array([0.5, 0.975])).array
        array([0.      , 1.95996398])
    """
    return Ndtri().apply((x,))[0]


__getattr__ = _special.module_getattr(__name__)  # available_cpu, as in Chainer
