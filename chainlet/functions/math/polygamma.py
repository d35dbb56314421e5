"""``polygamma``: the ``n``-th derivative of the digamma function (SciPy's ``polygamma``).

``n`` is an integer array without a gradient; ``x`` is differentiable to any order since
``d/dx polygamma(n, x) = polygamma(n + 1, x)``.
"""
from __future__ import annotations

from typing import Any

from chainlet.functions.math._special import BinarySpecial
from chainlet.variable import Variable


class PolyGamma(BinarySpecial):
    """``y = psi^(n)(x)``; ``dy/dx = psi^(n+1)(x)``; ``n`` gets no gradient."""

    name = 'polygamma'
    scipy_name = 'polygamma'
    args = ('n', 'x')
    first_kind = 'iu'

    def grad_b(self, n, x, gy):
        return polygamma(n.xp.asarray(n.array + 1), x) * gy


def polygamma(n: Any, x: Any) -> Variable:
    """Elementwise polygamma function, :math:`\\psi^{(n)}(x) = \\frac{d^{n+1}}{dx^{n+1}}
    \\ln\\Gamma(x)`.

    Computed with ``scipy.special.polygamma`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.polygamma`` on the GPU.

    Args:
        n: Integer array (or Variable) of orders, broadcastable with ``x``; no gradient.
        x: Variable or array of floats, differentiable to any order.

    Returns:
        Variable of the broadcast shape and ``x``'s dtype.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.polygamma(np.array(1), np.array([1.0, 2.0])).array
        array([1.64493407, 0.64493407])
    """
    return PolyGamma().apply((n, x))[0]
