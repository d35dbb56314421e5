"""Mean absolute error between two arrays."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._common import reduction_dtype
from chainlet.functions.loss.mean_squared_error import check_pair
from chainlet.variable import Variable


class MeanAbsoluteError(FunctionNode):
    """``sum(|x0 - x1|) / size``; the gradient is ``sign(x0 - x1) / size``."""

    def _check_arrays(self, in_data):
        check_pair('mean_absolute_error', *in_data)

    def forward(self, inputs):
        x0, x1 = inputs
        xp = backend.get_array_module(x0)
        self.retain_inputs((0, 1))
        diff = (x0 - x1).ravel()
        if diff.size == 0:
            return xp.full((), xp.nan, x0.dtype),  # the mean of nothing, as numpy.mean
        s = abs(diff).sum(dtype=reduction_dtype(x0.dtype))
        return xp.asarray(s / diff.size, dtype=x0.dtype),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        xp = backend.get_array_module(x0.array)
        # sign() is piecewise constant: its derivative is zero, so a constant is exact here.
        sign = xp.sign(x0.array - x1.array)
        gx0 = (grad_outputs[0] * (1.0 / max(x0.size, 1))) * sign
        return tuple([gx0 if i == 0 else -gx0 for i in indexes])


def mean_absolute_error(x0: Any, x1: Any) -> Variable:
    """Mean of the absolute differences, :math:`\\frac{1}{n}\\sum_i |x_{0i} - x_{1i}|`.

    The gradient at ``x0 == x1`` is taken as 0.

    Args:
        x0: Variable or float array.
        x1: Variable or array of the same shape and dtype.

    Returns:
        0-d Variable of the inputs' dtype (NaN for empty inputs).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.mean_absolute_error(np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 4.0])).array
        array(1.)
    """
    return MeanAbsoluteError().apply((x0, x1))[0]
