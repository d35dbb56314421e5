"""Huber loss: quadratic near zero, linear beyond ``delta``."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._common import check_reduce, reduction_dtype
from chainlet.variable import Variable

_FUNC = 'huber_loss'


class HuberLoss(FunctionNode):
    """Elementwise Huber loss of ``x - t``, optionally summed along axis 1."""

    def __init__(self, delta: float, reduce: str) -> None:
        self.delta = delta
        self.reduce = reduce

    def _check_arrays(self, in_data):
        x, t = in_data
        type_check.float_input(_FUNC, 'x', x)
        type_check.argument(_FUNC, 't', t, dtype=x.dtype, shape=x.shape)
        if self.reduce == 'sum_along_second_axis':
            type_check.argument(_FUNC, 'x', x, min_ndim=2)

    def forward(self, inputs):
        x, t = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        delta = xp.asarray(self.delta, x.dtype)
        a = abs(x - t)
        # 0.5 q^2 + delta (a - q) with q = min(a, delta) is 0.5 a^2 inside and
        # delta (a - delta/2) outside (Keras's Huber), without a branch; a^2 is never formed
        # for a large residual (a^2 - (a - delta)^2 cancels: NaN at 1000 in float16).
        q = xp.minimum(a, delta)
        y = xp.square(q) * xp.asarray(0.5, x.dtype) + delta * (a - q)
        if self.reduce == 'sum_along_second_axis':
            y = xp.asarray(y.sum(axis=1, dtype=reduction_dtype(x.dtype)), dtype=x.dtype)
        return y,

    def backward(self, indexes, grad_outputs):
        x, t = self.get_retained_inputs()
        gy = grad_outputs[0]
        if self.reduce == 'sum_along_second_axis':
            gy = gy.reshape(gy.shape[:1] + (1,) + gy.shape[1:])
        xp = backend.get_array_module(x.array)
        diff = x - t
        d = diff.array
        inside = abs(d) <= self.delta
        # clip(diff, -delta, delta): diff where |diff| <= delta, else the constant +-delta.
        clipped = diff * inside.astype(d.dtype) + \
            xp.where(inside, 0, xp.sign(d) * self.delta).astype(d.dtype)
        gx = clipped * gy
        return tuple([gx if i == 0 else -gx for i in indexes])


def huber_loss(x: Any, t: Any, delta: float,
               reduce: str = 'sum_along_second_axis') -> Variable:
    """Huber loss of ``d = x - t``: ``d^2 / 2`` if ``|d| <= delta``, else
    ``delta * (|d| - delta / 2)``.

    Args:
        x: Variable or float array of shape ``(N, K, ...)``.
        t: Target of the same shape and dtype.
        delta: Positive threshold where the loss turns from quadratic to linear.
        reduce: ``'sum_along_second_axis'`` (sum over axis 1, shape ``(N, ...)``) or
            ``'no'`` (elementwise, shape of ``x``).

    Returns:
        Variable of the inputs' dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[0.5, 3.0], [-0.2, 0.0]])
        >>> F.huber_loss(x, np.zeros_like(x), delta=1.0).array
        array([2.625, 0.02 ])
        >>> F.huber_loss(x, np.zeros_like(x), delta=1.0, reduce='no').array
        array([[0.125, 2.5  ],
               [0.02 , 0.   ]])
    """
    check_reduce(_FUNC, reduce, ('sum_along_second_axis', 'no'))
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) and \
            not (hasattr(delta, 'dtype') and getattr(delta, 'ndim', 1) == 0):
        raise TypeError(f'{_FUNC}: argument delta: expected a number, got '
                        f'{type(delta).__name__}')
    if not float(delta) > 0:
        raise ValueError(f'{_FUNC}: argument delta: expected a positive number, got {delta}')
    return HuberLoss(float(delta), reduce).apply((x, t))[0]
