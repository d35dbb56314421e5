"""Leaky rectified linear unit."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.activation._util import real_param
from chainlet.variable import Variable


class LeakyReLU(FunctionNode):
    """``y = x`` for ``x >= 0``, ``slope * x`` otherwise."""

    def __init__(self, slope: float = 0.2) -> None:
        self.slope = real_param('leaky_relu', 'slope', slope)

    def _check_arrays(self, in_data):
        type_check.argument('leaky_relu', 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        y = xp.where(x >= 0, x, x * x.dtype.type(self.slope))
        # With a positive slope, y < 0 exactly where x < 0: keep y (often kept anyway by the
        # next function) instead of x.
        if self.slope > 0:
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return y,

    def forward_gpu(self, inputs):
        y = _cuda_kernels.leaky_relu(inputs[0], self.slope)
        if self.slope > 0:  # as in forward: keep y rather than x when it tells the sign
            self.retain_outputs((0,))
        else:
            self.retain_inputs((0,))
        return y,

    def backward(self, indexes, grad_outputs):
        if self.slope > 0:
            cond, = self.output_data()
        else:
            cond = self.get_retained_inputs()[0].array
        return LeakyReLUGrad(cond, self.slope).apply((grad_outputs[0],))


class LeakyReLUGrad(FunctionNode):
    """``gx = gy`` where ``cond >= 0``, ``slope * gy`` elsewhere (``cond`` is x or y).

    Linear in ``gy``; the second derivative with respect to ``x`` is zero almost everywhere.
    """

    def __init__(self, cond: Any, slope: float) -> None:
        self.cond = cond
        self.slope = slope

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        return xp.where(self.cond < 0, gy * gy.dtype.type(self.slope), gy),

    def forward_gpu(self, inputs):
        return _cuda_kernels.leaky_relu_grad(inputs[0], self.cond, self.slope),

    def backward(self, indexes, grad_outputs):
        return LeakyReLUGrad(self.cond, self.slope).apply((grad_outputs[0],))


def leaky_relu(x: Any, slope: float = 0.2) -> Variable:
    """Leaky rectified linear unit: :math:`y = x` if :math:`x \\ge 0`, else :math:`a x`.

    Args:
        x: Variable or array of floats, any shape.
        slope: Slope :math:`a` of the negative part (a real number).

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.leaky_relu(np.array([-2.0, 0.0, 3.0], np.float32), slope=0.5).array
        array([-1.,  0.,  3.], dtype=float32)
    """
    return LeakyReLU(slope).apply((x,))[0]
