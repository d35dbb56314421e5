"""Softplus, a smooth approximation of ReLU."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.activation._util import real_param
from chainlet.functions.activation.sigmoid import sigmoid, sigmoid_array
from chainlet.variable import Variable


class Softplus(FunctionNode):
    """``y = log(1 + exp(beta * x)) / beta``, as ``(max(bx, 0) + log1p(exp(-|bx|))) / beta``
    so that no ``exp`` overflows."""

    def __init__(self, beta: float = 1.0) -> None:
        self.beta = beta

    def _check_arrays(self, in_data):
        type_check.argument('softplus', 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        dt = x.dtype.type
        self.retain_inputs((0,))
        bx = x * dt(self.beta)
        y = (xp.maximum(bx, dt(0)) + xp.log1p(xp.exp(-xp.abs(bx)))) / dt(self.beta)
        return y,

    def forward_gpu(self, inputs):
        self.retain_inputs((0,))
        return _cuda_kernels.softplus(inputs[0], self.beta),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return SoftplusGrad(self.beta).apply((x, grad_outputs[0]))


class SoftplusGrad(FunctionNode):
    """``gx = gy * sigmoid(beta * x)``; differentiable in ``x`` and ``gy``."""

    def __init__(self, beta: float) -> None:
        self.beta = beta

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        return gy * sigmoid_array(x * x.dtype.type(self.beta)),

    def forward_gpu(self, inputs):
        self.retain_inputs((0, 1))
        return _cuda_kernels.softplus_grad(*inputs, self.beta),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                s = sigmoid(x * self.beta)
                ret.append(ggx * gy * s * (1.0 - s) * self.beta)
            else:
                ret.append(SoftplusGrad(self.beta).apply((x, ggx))[0])
        return tuple(ret)


def softplus(x: Any, beta: float = 1.0) -> Variable:
    """Softplus, :math:`y = \\frac{1}{\\beta} \\log(1 + e^{\\beta x})`, elementwise.

    It approaches ReLU as :math:`\\beta` grows. Computed without overflow for any input
    (e.g. ``|x| ~ 1e4``); the gradient :math:`\\sigma(\\beta x)` is stable as well.

    Args:
        x: Variable or array of floats, any shape.
        beta: Nonzero real :math:`\\beta`.

    Returns:
        Variable of the same shape and dtype.

    Raises:
        ValueError: ``beta`` is zero.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.softplus(np.array([-2.0, 0.0, 2.0], np.float32)).array
        array([0.126928 , 0.6931472, 2.126928 ], dtype=float32)
    """
    b = real_param('softplus', 'beta', beta)
    if b == 0:
        raise ValueError('softplus: argument beta: expected a nonzero number, got 0.0')
    return Softplus(b).apply((x,))[0]
