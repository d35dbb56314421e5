"""``fmod``: the remainder of a division truncated towards zero (C's ``fmod``)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Fmod(FunctionNode):
    """``y = x - fix(x / d) d``; ``dy/dx = 1``, ``dy/dd = -fix(x / d)`` (piecewise constant)."""

    @property
    def label(self) -> str:
        return 'fmod'

    def _check_arrays(self, in_data):
        type_check.count('fmod', in_data, 2)
        type_check.float_input('fmod', 'x', in_data[0])
        type_check.same_dtype('fmod', ('x', 'divisor'), in_data)
        type_check.broadcastable('fmod', ('x', 'divisor'), in_data)

    def forward(self, inputs):
        x, d = inputs
        self.retain_inputs((0, 1))
        return backend.get_array_module(x, d).fmod(x, d),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.sum_to import sum_to
        from chainlet.functions.math.rounding import fix
        x, d = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        if 0 in indexes:
            ret.append(gy if gy.shape == x.shape else sum_to(gy, x.shape))
        if 1 in indexes:
            gd = -fix(x / d) * gy
            ret.append(gd if gd.shape == d.shape else sum_to(gd, d.shape))
        return tuple(ret)


def fmod(x: Any, divisor: Any) -> Variable:
    """Elementwise remainder of ``x / divisor`` with the sign of ``x`` (``numpy.fmod``).

    Args:
        x: Variable or array of floats, the dividend.
        divisor: Variable or array of the same dtype, broadcastable with ``x``.

    Returns:
        Variable of the broadcast shape and the common dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.fmod(np.array([5.0, -5.0]), np.array([3.0, 3.0])).array
        array([ 2., -2.])
    """
    return Fmod().apply((x, divisor))[0]
