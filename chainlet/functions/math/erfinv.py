"""``erfinv``: the inverse of the error function (SciPy's ``erfinv``)."""
from __future__ import annotations

import math
from typing import Any

from chainlet.functions.math import _special
from chainlet.functions.math._special import UnarySpecial
from chainlet.variable import Variable


class ErfInv(UnarySpecial):
    """``y = erf^-1(x)``; ``dy/dx = sqrt(pi) / 2 exp(y^2)``.

    ``erfc = 1 - erf``, so :class:`~chainlet.functions.math.erfcinv.ErfcInv` is this node
    with the SciPy routine swapped and the slope negated (``slope``).
    """

    name = 'erfinv'
    scipy_name = 'erfinv'
    retain = 'y'
    slope = math.sqrt(math.pi) / 2.0

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        y, = self.get_retained_outputs()
        return grad_outputs[0] * exp(y * y) * self.slope,


BACKWORDC = ErfInv.slope  # sqrt(pi) / 2, under Chainer's (misspelt) name


def erfinv(x: Any) -> Variable:
    """Elementwise inverse error function, :math:`y` with :math:`\\mathrm{erf}(y) = x`.

    Computed with ``scipy.special.erfinv`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.erfinv`` on the GPU.

    Args:
        x: Variable or array of floats, any shape, values in ``[-1, 1]`` (``+-1`` give
            ``+-inf``, outside NaN).

    Returns:
        Variable of the same shape and dtype, :math:`\\mathrm{erf}^{-1}(x)`.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.erfinv(np.array([0.0, 0.5])).array
        array([0.        , 0.47693628])
    """
    return ErfInv().apply((x,))[0]


__getattr__ = _special.module_getattr(__name__)  # available_cpu, as in Chainer
