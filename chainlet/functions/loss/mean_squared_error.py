"""Mean squared error between two arrays."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._common import reduction_dtype
from chainlet.variable import Variable


def check_pair(func: str, x0: Any, x1: Any) -> None:
    """Both float, same dtype, same shape (shared by the two mean errors)."""
    type_check.float_input(func, 'x0', x0)
    type_check.argument(func, 'x1', x1, dtype=x0.dtype, shape=x0.shape)


class MeanSquaredError(FunctionNode):
    """``sum((x0 - x1) ** 2) / size``; both inputs are retained to rebuild the difference."""

    def _check_arrays(self, in_data):
        check_pair('mean_squared_error', *in_data)

    def forward(self, inputs):
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        self.retain_inputs((0, 1))
        diff = (x0 - x1).ravel()
        if diff.size == 0:
            return xp.full((), xp.nan, x0.dtype),  # the mean of nothing, as numpy.mean
        s = xp.square(diff).sum(dtype=reduction_dtype(x0.dtype))
        return xp.asarray(s / diff.size, dtype=x0.dtype),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        gx0 = (x0 - x1) * (gy * (2.0 / max(x0.size, 1)))
        return tuple([gx0 if i == 0 else -gx0 for i in indexes])


def mean_squared_error(x0: Any, x1: Any) -> Variable:
    """Mean of the squared differences, :math:`\\frac{1}{n}\\sum_i (x_{0i} - x_{1i})^2`.

    Args:
        x0: Variable or float array.
        x1: Variable or array of the same shape and dtype.

    Returns:
        0-d Variable of the inputs' dtype (NaN for empty inputs).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.mean_squared_error(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 4.0])).array
        array(1.66666667)
    """
    return MeanSquaredError().apply((x0, x1))[0]
