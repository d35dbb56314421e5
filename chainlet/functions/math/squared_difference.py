"""``squared_difference``: ``(x1 - x2) ** 2`` elementwise."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.sum_to import sum_to
from chainlet.variable import Variable


class SquaredDifference(FunctionNode):
    """``y = (x1 - x2)^2``; ``dy/dx1 = 2 (x1 - x2) = -dy/dx2``.

    ``name`` is the public function reported in errors; with ``same_shape`` the operands must
    have equal shapes (``squared_error``) instead of broadcasting.
    """

    def __init__(self, name: str = 'squared_difference', same_shape: bool = False,
                 arg_names: tuple = ('x1', 'x2')) -> None:
        self.name = name
        self.same_shape = same_shape
        self.arg_names = arg_names

    def _check_arrays(self, in_data):
        a, b = in_data
        type_check.float_input(self.name, self.arg_names[0], a)
        type_check.same_dtype(self.name, self.arg_names, in_data)
        if a.shape != b.shape:
            if self.same_shape:
                raise type_check.fail(self.name, self.arg_names[1],
                                      f'shape {a.shape} (the shape of {self.arg_names[0]})',
                                      str(b.shape))
            type_check.broadcastable(self.name, self.arg_names, in_data)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        xp = backend.get_array_module(x1)
        d = xp.subtract(x1, x2)
        return xp.square(d),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        g = grad_outputs[0] * (x1 - x2) * 2.0
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(g, x1.shape))
            else:
                ret.append(sum_to(-g, x2.shape))
        return tuple(ret)


def squared_difference(x1: Any, x2: Any) -> Variable:
    """Elementwise squared difference :math:`y = (x_1 - x_2)^2`.

    Args:
        x1: Variable or array of floats.
        x2: Variable or array of the same dtype; broadcasts with ``x1``.

    Returns:
        Variable of the broadcast shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.squared_difference(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
        array([4., 9.])
    """
    return SquaredDifference().apply((x1, x2))[0]
