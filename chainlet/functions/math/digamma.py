"""``digamma``: the logarithmic derivative of the gamma function (SciPy's ``digamma``)."""
from __future__ import annotations

from typing import Any

from chainlet.functions.math._special import UnarySpecial
from chainlet.variable import Variable


class DiGamma(UnarySpecial):
    """``y = psi(x)``; ``dy/dx = psi'(x) = polygamma(1, x)``."""

    name = 'digamma'
    scipy_name = 'digamma'

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.polygamma import polygamma
        x, = self.get_retained_inputs()
        xp = x.xp
        return polygamma(xp.ones((), dtype=xp.int64), x) * grad_outputs[0],


def digamma(x: Any) -> Variable:
    """Elementwise digamma function, :math:`\\psi(x) = \\frac{d}{dx} \\ln\\Gamma(x)`.

    Computed with ``scipy.special.digamma`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.digamma`` on the GPU.

    Args:
        x: Variable or array of floats, any shape (the non-positive integers are poles).

    Returns:
        Variable of the same shape and dtype, :math:`\\psi(x)`.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.digamma(np.array([1.0, 2.0])).array
        array([-0.57721566,  0.42278434])
    """
    return DiGamma().apply((x,))[0]
