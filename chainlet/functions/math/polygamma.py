"""``polygamma``: the ``n``-th derivative of the digamma function (SciPy's ``polygamma``).

``n`` is an integer array without a gradient; ``x`` is differentiable to any order since
``d/dx polygamma(n, x) = polygamma(n + 1, x)``.
"""
from __future__ import annotations

from typing import Any

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math._special import evaluate
from chainlet.variable import Variable


class PolyGamma(FunctionNode):
    """``y = psi^(n)(x)``; ``dy/dx = psi^(n+1)(x)``; ``n`` gets no gradient."""

    @property
    def label(self) -> str:
        return 'polygamma'

    def _check_arrays(self, in_data):
        type_check.count('polygamma', in_data, 2)
        n, x = in_data
        type_check.argument('polygamma', 'n', n, kind='iu')
        type_check.float_input('polygamma', 'x', x)
        type_check.broadcastable('polygamma', ('n', 'x'), in_data)

    def forward(self, inputs):
        n, x = inputs
        self.retain_inputs((0, 1))
        return evaluate('polygamma', 'polygamma', n, x, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.sum_to import sum_to
        n, x = self.get_retained_inputs()
        gx = polygamma(n.xp.asarray(n.array + 1), x) * grad_outputs[0]
        if gx.shape != x.shape:
            gx = sum_to(gx, x.shape)
        return None, gx


def polygamma(n: Any, x: Any) -> Variable:
    """Elementwise polygamma function, :math:`\\psi^{(n)}(x) = \\frac{d^{n+1}}{dx^{n+1}}
    \\ln\\Gamma(x)`.

    Computed with ``scipy.special.polygamma`` on the CPU (SciPy is the ``special`` extra) and
    ``cupyx.scipy.special.polygamma`` on the GPU.

    Args:
        n: Integer array (or Variable) of orders, broadcastable with ``x``; no gradient.
        x: Variable or array of floats.

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
