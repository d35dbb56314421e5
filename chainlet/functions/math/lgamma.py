"""``lgamma``: the logarithm of the absolute value of the gamma function (SciPy's ``gammaln``)."""
from __future__ import annotations

from typing import Any

from chainlet.functions.math._special import UnarySpecial
from chainlet.variable import Variable


class LGamma(UnarySpecial):
    """``y = ln|Gamma(x)|``; ``dy/dx = psi(x)`` (digamma)."""

    name = 'lgamma'
    scipy_name = 'gammaln'

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.digamma import digamma
        x, = self.get_retained_inputs()
        return digamma(x) * grad_outputs[0],


def lgamma(x: Any) -> Variable:
    """Elementwise log-gamma function, :math:`\\ln|\\Gamma(x)|`.

    Computed with ``scipy.special.gammaln`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.gammaln`` on the GPU.

    Args:
        x: Variable or array of floats, any shape (``inf`` at the non-positive integers).

    Returns:
        Variable of the same shape and dtype, :math:`\\ln|\\Gamma(x)|`.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.lgamma(np.array([1.0, 5.0])).array
        array([0.        , 3.17805383])
    """
    return LGamma().apply((x,))[0]
