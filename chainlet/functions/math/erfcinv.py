"""``erfcinv``: the inverse of the complementary error function (SciPy's ``erfcinv``)."""
from __future__ import annotations

from typing import Any

from chainlet.functions.math import _special
from chainlet.functions.math.erfinv import ErfInv
from chainlet.variable import Variable


class ErfcInv(ErfInv):
    """``y = erfc^-1(x)``; ``dy/dx = -sqrt(pi) / 2 exp(y^2)`` (the ``erfinv`` slope negated)."""

    name = 'erfcinv'
    scipy_name = 'erfcinv'
    slope = -ErfInv.slope


BACKWORDC = ErfInv.slope  # sqrt(pi) / 2, under Chainer's (misspelt) name


def erfcinv(x: Any) -> Variable:
    """Elementwise inverse complementary error function:
    :math:`y` with :math:`\\mathrm{erfc}(y) = x`.

    Computed with ``scipy.special.erfcinv`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.erfcinv`` on the GPU.

    Args:
        x: Variable or array of floats, any shape, values in ``[0, 2]`` (``0`` and ``2``
            give ``+inf`` and ``-inf``).

    Returns:
        Variable of the same shape and dtype, :math:`\\mathrm{erfc}^{-1}(x)`.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.erfcinv(np.array([0.5, 1.5])).array
        array([ 0.47693628, -0.47693628])
    """
    return ErfcInv().apply((x,))[0]


__getattr__ = _special.module_getattr(__name__)  # available_cpu, as in Chainer
