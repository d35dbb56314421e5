"""Rectified linear unit."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.variable import Variable


class ReLU(FunctionNode):
    """``y = max(x, 0)``; the output is retained since ``dy/dx = (y > 0)``."""

    def _check_arrays(self, in_data):
        type_check.argument('relu', 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return backend.get_array_module(x).maximum(x, x.dtype.type(0)),

    def forward_gpu(self, inputs):
        self.retain_outputs((0,))
        return _cuda_kernels.relu(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.output_data()
        return ReLUGrad(y).apply((grad_outputs[0],))

    def _backward_arrays(self, indexes, grad_outputs):
        return grad_outputs[0] * (self._retained_output_data[0] > 0),


class ReLUGrad(FunctionNode):
    """``gx = gy * (y > 0)``.

    Linear in ``gy``; ``y`` is the forward's retained output, held as a constant: the second
    derivative of ReLU is zero almost everywhere, so no gradient flows back to ``x``.
    """

    def __init__(self, y: Any) -> None:
        self.y = y

    def forward(self, inputs):
        gy, = inputs
        return gy * (self.y > 0),

    def forward_gpu(self, inputs):
        return _cuda_kernels.relu_grad(inputs[0], self.y),

    def backward(self, indexes, grad_outputs):
        return ReLUGrad(self.y).apply((grad_outputs[0],))


def relu(x: Any) -> Variable:
    """Rectified linear unit, :math:`y = \\max(x, 0)`, elementwise.

    The gradient at ``x == 0`` is taken as 0.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.relu(np.array([-1.0, 0.5, 2.0], np.float32)).array
        array([0. , 0.5, 2. ], dtype=float32)
    """
    return ReLU().apply((x,))[0]
