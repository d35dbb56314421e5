"""Logistic sigmoid."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.math.basic_math import _const
from chainlet.variable import Variable


def sigmoid_array(x: Any) -> Any:
    """``1 / (1 + exp(-x))`` of an array, in its dtype, without overflow.

    ``exp(-|x|)`` never overflows, and ``e / (1 + e)`` keeps full relative precision in the
    left tail (the tanh form ``tanh(x/2)/2 + 1/2`` rounds it away).
    """
    xp = backend.get_array_module(x)
    e = xp.exp(-xp.abs(x))
    y = xp.where(x >= 0, xp.ones_like(e), e)
    y /= 1 + e
    return xp.asarray(y, dtype=x.dtype)


class Sigmoid(FunctionNode):
    """``y = 1 / (1 + exp(-x))``, computed without overflow and accurate in both tails."""

    def _check_arrays(self, in_data):
        type_check.float_input('sigmoid', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_outputs((0,))
        return sigmoid_array(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return SigmoidGrad().apply((y, grad_outputs[0]))


class SigmoidGrad(FunctionNode):
    """``gx = gy * y * (1 - y)``; differentiable in ``y`` and ``gy``."""

    def forward(self, inputs):
        y, gy = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(y)
        gx = xp.empty_like(y)
        # A ready 0-d constant of y's dtype: converting a Python 1 costs more than a small op.
        xp.subtract(_const(y, 1), y, out=gx)
        xp.multiply(gx, y, out=gx)
        xp.multiply(gx, gy, out=gx)
        return gx,

    def forward_gpu(self, inputs):
        self.retain_inputs((0, 1))
        return _cuda_kernels.sigmoid_grad(*inputs),

    def backward(self, indexes, grad_outputs):
        y, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * (1.0 - 2.0 * y))
            else:
                ret.append(ggx * y * (1.0 - y))
        return tuple(ret)


def sigmoid(x: Any) -> Variable:
    """Elementwise logistic sigmoid, :math:`y = 1 / (1 + e^{-x})`.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``(0, 1)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sigmoid(np.array([0.0], np.float32)).array
        array([0.5], dtype=float32)
    """
    return Sigmoid().apply((x,))[0]
