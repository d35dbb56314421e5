"""Logarithm of the softmax, computed without overflow."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.math.logsumexp import logsumexp  # noqa: F401  (Chainer has it here)
from chainlet.variable import Variable


def log_softmax_array(x: Any, axis: int) -> Any:
    """``x - logsumexp(x, axis)`` on an array, in ``x``'s dtype (float16 works in float32).

    Shared with the losses built on it (``softmax_cross_entropy``, CTC). Subtracting the maximum
    first keeps ``exp`` in ``[0, 1]``, so inputs of any magnitude give finite results.
    """
    xp = backend.get_array_module(x)
    if x.size == 0:
        return xp.array(x, copy=True)
    work = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
    y = work - work.max(axis=axis, keepdims=True)
    s = xp.exp(y).sum(axis=axis, keepdims=True)
    y -= xp.log(s)
    return y.astype(x.dtype, copy=False)


def check_softmax_axis(func: str, x: Any, axis: Any) -> int:
    """Validate ``axis`` against the rank of ``x`` (Variable or array); return it normalised."""
    if not isinstance(axis, (int, numpy.integer)) or isinstance(axis, bool):
        raise TypeError(f'{func}: argument axis: expected an int, got {type(axis).__name__}')
    ndim = getattr(x, 'ndim', None)
    if ndim is None:
        raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
    if ndim == 0:
        raise ValueError(f'{func}: argument x: expected ndim >= 1, got shape ()')
    return type_check.axis_in_range(func, 'axis', int(axis), ndim)


class LogSoftmax(FunctionNode):
    """``y = x - logsumexp(x, axis)``; the output is retained (``softmax = exp(y)``)."""

    def __init__(self, axis: int = 1) -> None:
        self.axis = axis

    def _check_arrays(self, in_data):
        type_check.float_input('log_softmax', 'x', in_data[0])

    def forward(self, inputs):
        self.retain_outputs((0,))
        return log_softmax_array(inputs[0], self.axis),

    def forward_gpu(self, inputs):
        self.retain_outputs((0,))
        return _cuda_kernels.log_softmax(inputs[0], self.axis),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return LogSoftmaxGrad(self.axis).apply((y, grad_outputs[0]))


class LogSoftmaxGrad(FunctionNode):
    """``gx = gy - exp(y) * sum(gy, axis)``; differentiable in ``y`` and ``gy``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        y, gy = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(y)
        gx = xp.exp(y)
        gx *= gy.sum(axis=self.axis, keepdims=True)
        xp.subtract(gy, gx, out=gx)
        return gx,

    def forward_gpu(self, inputs):
        y, gy = inputs
        self.retain_inputs((0, 1))
        return _cuda_kernels.log_softmax_grad(y, gy, gy.sum(axis=self.axis, keepdims=True)),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        from chainlet.functions.math.sum import sum as sum_
        y, gy = self.get_retained_inputs()
        ggx = grad_outputs[0]
        axis = self.axis
        p = exp(y)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(-(ggx * p * sum_(gy, axis, keepdims=True)))
            else:
                ret.append(ggx - sum_(ggx * p, axis, keepdims=True))
        return tuple(ret)


def log_softmax(x: Any, axis: int = 1) -> Variable:
    """Logarithm of the softmax along ``axis``: :math:`y_i = x_i - \\log \\sum_j e^{x_j}`.

    Computed with the log-sum-exp trick, so it stays finite and exact for inputs of any
    magnitude (``log(softmax(x))`` would underflow to ``-inf``).

    Args:
        x: Variable or array of floats with at least one dimension.
        axis: Axis over which the (log-)probabilities are normalised.

    Returns:
        Variable of the same shape and dtype as ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.log_softmax(np.array([[0.0, 0.0], [1e4, 0.0]])).array
        array([[-6.93147181e-01, -6.93147181e-01],
               [ 0.00000000e+00, -1.00000000e+04]])
    """
    axis = check_softmax_axis('log_softmax', x, axis)
    return LogSoftmax(axis).apply((x,))[0]
