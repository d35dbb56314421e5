"""``zeta``: the Hurwitz zeta function ``zeta(x, q)`` (SciPy's ``zeta``), differentiable in ``q``.

``d/dq zeta(x, q) = -x zeta(x + 1, q)`` is again a zeta, so ``q`` is differentiable to any
order. The derivative in the order ``x`` has no closed form among SciPy's functions; asking
for it raises instead of returning a wrong value (Chainer returns the ``q`` formula for it).
"""
from __future__ import annotations

from typing import Any

from chainlet.functions.math._special import BinarySpecial
from chainlet.variable import Variable


class Zeta(BinarySpecial):
    """``y = zeta(x, q) = sum_k (k + q)^-x``; ``dy/dq = -x zeta(x + 1, q)``."""

    name = 'zeta'
    scipy_name = 'zeta'
    args = ('x', 'q')

    def backward(self, indexes, grad_outputs):
        if 0 in indexes:
            raise RuntimeError('zeta: no gradient with respect to x (the order) is available; '
                               'pass x as an array or as a Variable with requires_grad=False')
        return super().backward(indexes, grad_outputs)

    def grad_b(self, x, q, gy):
        return -x * zeta(x + 1, q) * gy


def zeta(x: Any, q: Any) -> Variable:
    """Elementwise Hurwitz zeta function, :math:`\\zeta(x, q) = \\sum_{k=0}^\\infty (k + q)^{-x}`.

    Computed with ``scipy.special.zeta`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.zeta`` on the GPU. The gradient flows to ``q`` only.

    Args:
        x: Array (or Variable without gradient) of floats, the order; broadcastable with ``q``.
        q: Variable or array of floats.

    Returns:
        Variable of the broadcast shape and ``q``'s dtype.

    Raises:
        ImportError: On the CPU when SciPy is not installed.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.zeta(np.array([2.0]), np.array([1.0])).array
        array([1.64493407])
    """
    return Zeta().apply((x, q))[0]
