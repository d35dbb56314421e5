"""``absolute_error``: elementwise absolute error between two arrays of equal shape."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class AbsoluteError(FunctionNode):
    """``y = |x0 - x1|``; ``dy/dx0 = sign(x0 - x1) = -dy/dx1`` (zero where they are equal).

    The gradient is ``gy`` times the fixed sign of the difference: linear in ``gy``, so it is
    differentiable again (its derivative in ``x`` is zero).
    """

    def _check_arrays(self, in_data):
        x0, x1 = in_data
        type_check.float_input('absolute_error', 'x0', x0)
        type_check.same_dtype('absolute_error', ('x0', 'x1'), in_data)
        if x0.shape != x1.shape:
            raise type_check.fail('absolute_error', 'x1', f'shape {x0.shape} (the shape of x0)',
                                  str(x1.shape))

    def forward(self, inputs):
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        self.retain_inputs((0, 1))
        return xp.abs(xp.subtract(x0, x1)),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        xp = backend.get_array_module(x0.array)
        g = grad_outputs[0] * xp.sign(x0.array - x1.array)
        return tuple(g if i == 0 else -g for i in indexes)


def absolute_error(x0: Any, x1: Any) -> Variable:
    """Elementwise absolute error :math:`y = |x_0 - x_1|`, not reduced.

    Args:
        x0: Variable or array of floats.
        x1: Variable or array of the same shape and dtype.

    Returns:
        Variable of the same shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.absolute_error(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
        array([2., 3.])
    """
    return AbsoluteError().apply((x0, x1))[0]
