"""L2 normalization along an axis."""
from __future__ import annotations

from typing import Any, Sequence, Union

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.cast import cast
from chainlet.functions.math.sqrt import sqrt
from chainlet.functions.math.sum import normalize_axis, sum as _sum
from chainlet.variable import Variable


class NormalizeL2(FunctionNode):
    """``y = x / (||x||_2 + eps)`` along ``axis``; the input is retained for backward."""

    def __init__(self, eps: float = 1e-5, axis: Union[int, Sequence[int]] = 1) -> None:
        self.eps = eps
        # A tuple, as in Chainer (graph exporters such as onnx_chainer read ``axis[0]``).
        self.axis = (axis,) if isinstance(axis, int) else axis

    def _check_arrays(self, in_data):
        x, = in_data
        type_check.float_input('normalize', 'x', x)

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.axes = normalize_axis('normalize', self.axis, x.ndim)
        # float16 in float32: squares overflow past 256 and their sum past 65504
        xw = x.astype(numpy.float32) if x.dtype == numpy.float16 else x
        norm = xp.sqrt(xp.sum(xp.square(xw), axis=self.axes, keepdims=True))
        norm += norm.dtype.type(self.eps)
        self.retain_inputs((0,))
        return (xw / norm).astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if x.dtype == numpy.float16:
            # In float16 norm ** 3 underflows to 0 for a small vector (0 / 0 = NaN at a zero
            # vector) and squares overflow past 256: work in float32 as the forward does.
            gx = self._grad(cast(x, numpy.float32), cast(gy, numpy.float32))
            # At a zero vector the gradient is gy / eps: past 65504 (eps < 1.5e-5, as the
            # default 1e-5) it overflows to inf, as any float16 result that large does.
            with numpy.errstate(over='ignore'):
                return cast(gx, numpy.float16),
        return self._grad(x, gy),

    def _grad(self, x: Variable, gy: Variable) -> Variable:
        axes = self.axes
        sq = _sum(x * x, axes, keepdims=True)
        # The norm is not differentiable at a zero vector (y is: its Jacobian there is I / eps).
        # Put 1 under the square root there, so that no infinite derivative appears, and mask
        # it out of the norm; the second term vanishes with x, leaving the exact gy / eps.
        zero = (sq.array == 0).astype(x.dtype)
        norm0 = sqrt(sq + zero)
        norm = norm0 * (1 - zero) + self.eps
        x_gy = _sum(x * gy, axes, keepdims=True)
        return gy / norm - x * (x_gy / (norm * norm * norm0))


def normalize(x: Any, eps: float = 1e-5, axis: Union[int, Sequence[int]] = 1) -> Variable:
    """L2 normalization: divide ``x`` by its Euclidean norm along ``axis``.

    .. math::
        y = \\frac{x}{\\|x\\|_2 + \\epsilon}

    Args:
        x: Variable or array of floats (typically ``(N, K)``, one vector per row).
        eps: Added to the norm, so that a zero vector maps to zero.
        axis: Int or tuple of ints to take the norm over.

    Returns:
        Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.normalize(np.array([[3.0, 4.0]], np.float32), eps=0.0).array
        array([[0.6, 0.8]], dtype=float32)
    """
    return NormalizeL2(eps, axis).apply((x,))[0]
