"""Logarithms to base 2 and 10: ``log2`` and ``log10``."""
from __future__ import annotations

import math
from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class _LogBase(FunctionNode):
    """``y = log(x) / log(base)``; ``dy/dx = 1 / (x log(base))``."""

    name = ''
    ufunc = ''
    ln_base = 1.0

    def _check_arrays(self, in_data):
        type_check.float_input(self.name, 'x', in_data[0])

    def forward(self, inputs):
        self.retain_inputs((0,))
        xp = backend.get_array_module(inputs[0])
        return getattr(xp, self.ufunc)(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        # A Python float factor keeps the dtype (a NumPy float64 scalar would promote it).
        return grad_outputs[0] / (x * self.ln_base),


class Log2(_LogBase):
    """``y = log2(x)``."""

    name = 'log2'
    ufunc = 'log2'
    ln_base = math.log(2.0)


class Log10(_LogBase):
    """``y = log10(x)``."""

    name = 'log10'
    ufunc = 'log10'
    ln_base = math.log(10.0)


def log2(x: Any) -> Variable:
    """Elementwise base-2 logarithm, :math:`y = \\log_2 x`.

    Args:
        x: Variable or array of positive floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.log2(np.array([1.0, 8.0], np.float32)).array
        array([0., 3.], dtype=float32)
    """
    return Log2().apply((x,))[0]


def log10(x: Any) -> Variable:
    """Elementwise base-10 logarithm, :math:`y = \\log_{10} x`.

    Args:
        x: Variable or array of positive floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.log10(np.array([1.0, 1000.0])).array
        array([0., 3.])
    """
    return Log10().apply((x,))[0]
