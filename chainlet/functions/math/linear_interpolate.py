"""``linear_interpolate``: ``p * x + (1 - p) * y``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.sum_to import sum_to
from chainlet.variable import Variable


class LinearInterpolate(FunctionNode):
    """``z = p x + (1 - p) y`` (inputs broadcast); ``dz/dp = x - y``, ``dz/dx = p``,
    ``dz/dy = 1 - p``."""

    def _check_arrays(self, in_data):
        names = ('p', 'x', 'y')
        type_check.float_input('linear_interpolate', 'p', in_data[0])
        type_check.same_dtype('linear_interpolate', names, in_data)
        type_check.broadcastable('linear_interpolate', names, in_data)

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2))
        p, x, y = inputs
        xp = backend.get_array_module(p)
        # y + p (x - y) is one subtraction, one multiply-add and exact at p = 0.
        z = xp.subtract(x, y)
        z = z * p
        z += y
        return z,

    def backward(self, indexes, grad_outputs):
        p, x, y = self.get_retained_inputs()
        g = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(g * (x - y), p.shape))
            elif i == 1:
                ret.append(sum_to(g * p, x.shape))
            else:
                ret.append(sum_to(g * (1.0 - p), y.shape))
        return tuple(ret)


def linear_interpolate(p: Any, x: Any, y: Any) -> Variable:
    """Elementwise linear interpolation :math:`z = p x + (1 - p) y`.

    Args:
        p: Variable or array of floats, the weight of ``x``.
        x: Variable or array of the same dtype.
        y: Variable or array of the same dtype. The three broadcast together.

    Returns:
        Variable of the broadcast shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.linear_interpolate(np.array([0.0, 0.25, 1.0]), np.full(3, 4.0),
        ...                      np.zeros(3)).array
        array([0., 1., 4.])
    """
    return LinearInterpolate().apply((p, x, y))[0]
