"""``logsumexp``: ``log(sum(exp(x)))`` over axes, without overflow."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math._util import expand_to_input, kept_shape, reduced_size
from chainlet.functions.math.sum import Axis, normalize_axis
from chainlet.variable import Variable


class LogSumExp(FunctionNode):
    """``y = log(sum(exp(x), axis))`` computed as ``m + log(sum(exp(x - m)))`` with ``m`` the
    maximum, so no exponent is positive.

    ``dy/dx`` is the softmax of ``x``. It is not taken as ``exp(x - y)``: ``y`` is rounded to
    the output dtype, and at large ``|x|`` (float16 near 1e3, float32 near 1e6) one unit in
    its last place shifts every exponent, so rows of that "softmax" summed to 0.9 or 1.3.
    Backward shifts ``x`` by its (constant) maximum first, which is exact for the entries that
    matter, and normalises the shifted values by their own log-sum-exp, which is small.
    """

    def __init__(self, axis: Axis = None, keepdims: bool = False) -> None:
        if not (axis is None or isinstance(axis, (int, tuple))) or isinstance(axis, bool):
            raise TypeError(f'logsumexp: argument axis: expected None, an int or a tuple of '
                            f'ints, got {axis!r}')
        self.axis = axis
        self.keepdims = keepdims

    def _check_arrays(self, in_data):
        type_check.float_input('logsumexp', 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        self.axis = normalize_axis('logsumexp', self.axis, x.ndim)
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        axis, keepdims = self.axis, self.keepdims
        out_shape = kept_shape(x.shape, axis) if keepdims else tuple(
            s for i, s in enumerate(x.shape) if axis is not None and i not in axis)
        if reduced_size(x.shape, axis) == 0:
            # The sum of no exponentials is 0, whose log is -inf.
            return xp.full(out_shape, -numpy.inf, x.dtype),
        # float16 sums are evaluated in float32 so that long reductions keep their precision.
        xw = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
        m = xp.amax(xw, axis=axis, keepdims=True)
        # A row of -inf (or +inf) has a non-finite max; shifting by it would give NaN.
        m = xp.where(xp.isfinite(m), m, xp.zeros((), m.dtype))
        s = xp.sum(xp.exp(xw - m), axis=axis, keepdims=True)
        with numpy.errstate(divide='ignore'):  # log(0) = -inf is the right answer for -inf rows
            y = xp.log(s)
        y += m
        return y.reshape(out_shape).astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import exp
        x, = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        # The shift is a constant: softmax(x) == softmax(x - m) for any m, so no gradient of m
        # is needed, and x - m is exact where it is small (Sterbenz), i.e. where exp is not 0.
        m = xp.amax(x.array, axis=self.axis, keepdims=True) if x.size else xp.zeros((), x.dtype)
        m = xp.where(xp.isfinite(m), m, xp.zeros((), m.dtype))
        shifted = x - m
        log_norm = logsumexp(shifted, self.axis, keepdims=True)
        empty = xp.isneginf(log_norm.array)
        if empty.any():
            # A row of only -inf (a fully masked row) has no softmax: exp(-inf - -inf) would be
            # NaN. Its entries carry no mass, so their gradient is 0 (exp(-inf - 0)).
            from chainlet.functions.array.where import where
            log_norm = where(empty, xp.zeros_like(log_norm.array), log_norm)
        gy = expand_to_input(grad_outputs[0], x.shape, self.axis)
        return gy * exp(shifted - log_norm),


def logsumexp(x: Any, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Log of the sum of exponentials over ``axis``, :math:`y = \\log \\sum_i \\exp x_i`.

    Stable for large inputs (``|x|`` of 1e4 and more): the maximum is subtracted before
    exponentiating, in the forward and in the gradient (the softmax of ``x``).

    Args:
        x: Variable or array of floats.
        axis: Axis or tuple of axes to reduce; ``None`` reduces all.
        keepdims: Keep the reduced axes with length one (an extension of Chainer's signature).

    Returns:
        Variable with the reduced shape; ``-inf`` for an empty reduction.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.logsumexp(np.array([[1e4, 1e4], [0.0, np.log(3.0)]]), axis=1).array
        array([1.00006931e+04, 1.38629436e+00])
    """
    return LogSumExp(axis, keepdims).apply((x,))[0]
