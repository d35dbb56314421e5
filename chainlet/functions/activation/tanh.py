"""Hyperbolic tangent."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.math.basic_math import _const
from chainlet.variable import Variable


# Up to this many elements the gradient is computed without in-place calls (see _tanh_grad).
_SMALL = 4096


def _tanh_grad(y: Any, gy: Any) -> Any:
    """``gy * (1 - y^2)``: in place in one allocation for a large array; for a small NumPy
    array, three plain operations, which cost less than the in-place calls' arguments. The
    constant is a ready 0-d array of ``y``'s dtype (converting a Python ``1`` took longer than
    a small op). Both give the same bits."""
    one = _const(y, 1)
    if type(y) is numpy.ndarray and y.size <= _SMALL:
        return gy * (one - y * y)
    xp = backend.get_array_module(y)
    gx = y * y
    xp.subtract(one, gx, out=gx)
    xp.multiply(gx, gy, out=gx)
    return gx


class Tanh(FunctionNode):
    """``y = tanh(x)``; the output is retained because ``dy/dx = 1 - y^2``."""

    def _check_arrays(self, in_data):
        if in_data[0].dtype.kind != 'f':  # the test inline, the message only on failure
            type_check.float_input('tanh', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_outputs((0,))
        x = inputs[0]
        return (numpy.tanh(x) if type(x) is numpy.ndarray else
                backend.get_array_module(x).tanh(x)),

    def forward_gpu(self, inputs):
        self.retain_outputs((0,))
        return _cuda_kernels.tanh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return TanhGrad().apply((y, grad_outputs[0]))

    def _backward_arrays(self, indexes, grad_outputs):
        return _tanh_grad(self._retained_output_data[0], grad_outputs[0]),


class TanhGrad(FunctionNode):
    """``gx = gy * (1 - y^2)`` in one allocation; differentiable in ``y`` and ``gy``."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return _tanh_grad(*inputs),

    def forward_gpu(self, inputs):
        self.retain_inputs((0, 1))
        return _cuda_kernels.tanh_grad(*inputs),

    def backward(self, indexes, grad_outputs):
        y, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(ggx * gy * y * -2.0)
            else:
                ret.append(ggx * (1.0 - y * y))
        return tuple(ret)

    def _backward_arrays(self, indexes, grad_outputs):
        # The arithmetic of backward, on arrays (the same operations, so the same bits).
        y, gy = self._input_array(0), self._input_array(1)
        ggx = grad_outputs[0]
        one, minus_two = _const(y, 1.0), _const(y, -2.0)
        return tuple([ggx * gy * y * minus_two if i == 0 else ggx * (one - y * y)
                      for i in indexes])


def tanh(x: Any) -> Variable:
    """Elementwise hyperbolic tangent, :math:`y = \\tanh x`.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``(-1, 1)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.tanh(np.array([0.0], np.float32)).array
        array([0.], dtype=float32)
    """
    return Tanh().apply((x,))[0]
