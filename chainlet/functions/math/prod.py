"""``prod``: product of elements over axes, with a gradient that is exact at zeros."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.sum import Axis, check_axis_type, normalize_axis
from chainlet.variable import Variable


class _Shift(FunctionNode):
    """Shift along the last axis by ``k`` places (towards higher indices when ``k > 0``),
    filling the ``|k|`` vacated places with ``fill``.

    The map is affine; its adjoint is the opposite shift filled with zeros, which keeps the
    gradient of ``prod`` differentiable to any order.
    """

    def __init__(self, k: int, fill: float) -> None:
        self.k = k
        self.fill = fill

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        y = xp.full(x.shape, self.fill, x.dtype)
        n, k = x.shape[-1], self.k
        if abs(k) < n:
            if k > 0:
                y[..., k:] = x[..., :n - k]
            else:
                y[..., :n + k] = x[..., -k:]
        return y,

    def backward(self, indexes, grad_outputs):
        return _Shift(-self.k, 0.0).apply(grad_outputs)


def _exclusive_cumprod(x: Variable, direction: int) -> Variable:
    """Products of all elements before (``direction=1``) or after (``-1``) each position on
    the last axis, by a log-depth scan of differentiable multiplications (no division, so
    zeros are handled exactly)."""
    n = x.shape[-1]
    c = x
    step = 1
    while step < n:
        c = c * _Shift(direction * step, 1.0).apply((c,))[0]
        step *= 2
    return _Shift(direction, 1.0).apply((c,))[0]


class Prod(FunctionNode):
    """``y = prod(x, axis, keepdims)``.

    ``dy/dx_i`` is the product of the other reduced elements, computed as (product of the
    elements before ``i``) times (product of those after ``i``) rather than ``y / x_i``.
    """

    def __init__(self, axis: Axis = None, keepdims: bool = False) -> None:
        check_axis_type('prod', axis)
        self.axis = axis
        self.keepdims = keepdims

    def _check_arrays(self, in_data):
        type_check.float_input('prod', 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        self.axis = normalize_axis('prod', self.axis, x.ndim)
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        return xp.prod(x, axis=self.axis, keepdims=self.keepdims),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.reshape import reshape
        from chainlet.functions.array.transpose import transpose
        x, = self.get_retained_inputs()
        gy = grad_outputs[0]
        shape = x.shape
        axes = tuple(range(len(shape))) if self.axis is None else self.axis
        kept = [i for i in range(len(shape)) if i not in axes]
        perm = kept + list(axes)
        kept_dims = tuple(shape[i] for i in kept)
        n = 1
        for i in axes:
            n *= shape[i]
        # Bring the reduced axes to the end as one axis of length n.
        xt = x if perm == sorted(perm) else transpose(x, perm)
        xt = reshape(xt, kept_dims + (n,))
        others = _exclusive_cumprod(xt, 1) * _exclusive_cumprod(xt, -1)
        gx = others * reshape(gy, kept_dims + (1,))
        gx = reshape(gx, tuple(shape[i] for i in perm))
        if perm != sorted(perm):
            inverse = [0] * len(perm)
            for j, p in enumerate(perm):
                inverse[p] = j
            gx = transpose(gx, inverse)
        return gx,


def prod(x: Any, axis: Axis = None, keepdims: bool = False) -> Variable:
    """Product of the elements over ``axis``.

    The gradient of each element is the product of the other reduced elements, computed
    without division, so it is exact when some elements are zero.

    Args:
        x: Variable or array of floats.
        axis: Axis or tuple of axes to reduce; ``None`` reduces all.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable with the reduced shape (the product of nothing is 1).

    Example:
        >>> import numpy as np, chainlet
        >>> import chainlet.functions as F
        >>> x = chainlet.Variable(np.array([2.0, 0.0, 3.0]))
        >>> y = F.prod(x)
        >>> y.backward()
        >>> y.array, x.grad
        (array(0.), array([0., 6., 0.]))
    """
    return Prod(axis, keepdims).apply((x,))[0]
