"""Inverse trigonometric functions: ``arcsin``, ``arccos``, ``arctan`` and ``arctan2``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.sum_to import sum_to
from chainlet.variable import Variable


class Arcsin(FunctionNode):
    """``y = arcsin(x)``; ``dy/dx = 1 / sqrt(1 - x^2)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('arcsin', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).arcsin(inputs[0]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.rsqrt import rsqrt
        x, = self.get_retained_inputs()
        return grad_outputs[0] * rsqrt(1.0 - x * x),


class Arccos(FunctionNode):
    """``y = arccos(x)``; ``dy/dx = -1 / sqrt(1 - x^2)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('arccos', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).arccos(inputs[0]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.rsqrt import rsqrt
        x, = self.get_retained_inputs()
        return -(grad_outputs[0] * rsqrt(1.0 - x * x)),


class Arctan(FunctionNode):
    """``y = arctan(x)``; ``dy/dx = 1 / (1 + x^2)``."""

    def _check_arrays(self, in_data):
        type_check.float_input('arctan', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        return backend.get_array_module(inputs[0]).arctan(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / (x * x + 1.0),


class Arctan2(FunctionNode):
    """``y = arctan2(x1, x2)``, the angle of the point ``(x2, x1)``; inputs broadcast.

    ``dy/dx1 = x2 / (x1^2 + x2^2)`` and ``dy/dx2 = -x1 / (x1^2 + x2^2)``.
    """

    def _check_arrays(self, in_data):
        x1, x2 = in_data
        type_check.float_input('arctan2', 'x1', x1)
        type_check.same_dtype('arctan2', ('x1', 'x2'), in_data)
        if x1.shape != x2.shape:
            type_check.broadcastable('arctan2', ('x1', 'x2'), in_data)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return backend.get_array_module(x1).arctan2(x1, x2),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gy = grad_outputs[0]
        g = gy / (x1 * x1 + x2 * x2)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(g * x2, x1.shape))
            else:
                ret.append(sum_to(-(g * x1), x2.shape))
        return tuple(ret)


def arcsin(x: Any) -> Variable:
    """Elementwise inverse sine, :math:`y = \\arcsin x`, in ``[-pi/2, pi/2]``.

    Args:
        x: Variable or array of floats in ``[-1, 1]`` (the gradient needs ``(-1, 1)``).

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.arcsin(np.array([0.0, 1.0])).array
        array([0.        , 1.57079633])
    """
    return Arcsin().apply((x,))[0]


def arccos(x: Any) -> Variable:
    """Elementwise inverse cosine, :math:`y = \\arccos x`, in ``[0, pi]``.

    Args:
        x: Variable or array of floats in ``[-1, 1]`` (the gradient needs ``(-1, 1)``).

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.arccos(np.array([1.0, 0.0])).array
        array([0.        , 1.57079633])
    """
    return Arccos().apply((x,))[0]


def arctan(x: Any) -> Variable:
    """Elementwise inverse tangent, :math:`y = \\arctan x`, in ``(-pi/2, pi/2)``.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.arctan(np.array([0.0, 1.0])).array
        array([0.        , 0.78539816])
    """
    return Arctan().apply((x,))[0]


def arctan2(x1: Any, x2: Any) -> Variable:
    """Elementwise angle of the point ``(x2, x1)``: :math:`\\arctan(x_1 / x_2)` in the right
    quadrant, in ``[-pi, pi]``.

    Args:
        x1: Variable or array of floats (the y coordinates).
        x2: Variable or array of the same dtype (the x coordinates); broadcasts with ``x1``.

    Returns:
        Variable of the broadcast shape and the inputs' dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.arctan2(np.array([1.0, 1.0]), np.array([1.0, -1.0])).array
        array([0.78539816, 2.35619449])
    """
    return Arctan2().apply((x1, x2))[0]
