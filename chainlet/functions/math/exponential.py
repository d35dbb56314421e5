"""Exponential and logarithm: ``exp(x)`` and ``log(x)``."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.logarithm import Log2, Log10, log2, log10  # noqa: F401  (as Chainer)
from chainlet.variable import Variable


class Exp(FunctionNode):
    """``y = exp(x)``; the derivative is ``y`` itself, so the output is retained."""

    def _check_arrays(self, in_data):
        if in_data[0].dtype.kind != 'f':  # the test inline, the message only on failure
            type_check.float_input('exp', 'x', in_data[0])

    def forward(self, inputs):
        x = inputs[0]
        self.retain_outputs((0,))
        return (numpy.exp(x) if type(x) is numpy.ndarray else
                backend.get_array_module(x).exp(x)),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return y * grad_outputs[0],

    def _backward_arrays(self, indexes, grad_outputs):
        return self._retained_output_data[0] * grad_outputs[0],


class Log(FunctionNode):
    """``y = log(x)`` (natural logarithm)."""

    def _check_arrays(self, in_data):
        type_check.float_input('log', 'x', in_data[0])

    def forward(self, inputs):
        xp = backend.get_array_module(inputs[0])
        self.retain_inputs((0,))
        return xp.log(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] / x,


def exp(x: Any) -> Variable:
    """Elementwise exponential, :math:`y = e^x`.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.exp(np.array([0.0, 1.0])).array
        array([1.        , 2.71828183])
    """
    return Exp().apply((x,))[0]


def log(x: Any) -> Variable:
    """Elementwise natural logarithm, :math:`y = \\ln x`.

    Args:
        x: Variable or array of positive floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.log(np.array([1.0, np.e])).array
        array([0., 1.])
    """
    return Log().apply((x,))[0]
