"""Private helpers shared by the normalization functions.

:class:`Standardize` maps ``x`` to ``x_hat = (x - mean) * inv_std`` over some axes and also
returns ``inv_std = 1 / sqrt(var + eps)``. Both outputs are differentiable with respect to ``x``
to any order, which is what layer/group normalization and the double backward of
batch normalization are built on.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.math.sum import Mean
from chainlet.variable import Variable


def interm_dtype(dtype: Any) -> Any:
    """Dtype to accumulate statistics in: float32 for float16 inputs, else the input dtype."""
    dtype = numpy.dtype(dtype)
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


def reduced_size(shape: tuple, axes: tuple) -> int:
    """Number of elements averaged over when reducing ``shape`` over ``axes``."""
    m = 1
    for a in axes:
        m *= shape[a]
    return m


def moments(x: Any, axes: tuple) -> tuple:
    """Mean and biased variance over ``axes`` (keepdims), in :func:`interm_dtype`.

    An empty reduction gives zeros instead of NumPy's warning and NaN; there is nothing to
    normalize in that case, so the value never reaches an output.
    """
    xp = backend.get_array_module(x)
    dtype = interm_dtype(x.dtype)
    m = reduced_size(x.shape, axes)
    if m == 0:
        shape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
        return xp.zeros(shape, dtype), xp.zeros(shape, dtype)
    mean = x.mean(axis=axes, dtype=dtype, keepdims=True)
    xc = x - mean
    var = (xc * xc).mean(axis=axes, keepdims=True)
    return mean, var


class Standardize(FunctionNode):
    """``(x_hat, inv_std)`` with ``x_hat = (x - mean(x)) * inv_std`` over ``axes``.

    ``inv_std = (var(x) + eps) ** -0.5`` keeps the reduced axes (size one). Backward uses only the
    retained outputs, as Variables, so it can be differentiated again.
    """

    def __init__(self, axes: tuple, eps: float) -> None:
        self.axes = tuple(axes)
        self.eps = eps

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        mean, var = moments(x, self.axes)
        inv_std = 1 / xp.sqrt(var + self.eps)
        x_hat = ((x - mean) * inv_std).astype(x.dtype, copy=False)
        self.retain_outputs((0, 1))
        return x_hat, inv_std.astype(x.dtype, copy=False)

    def backward(self, indexes, grad_outputs):
        x_hat, inv_std = self.get_retained_outputs()
        gx_hat, ginv_std = grad_outputs
        axes = self.axes
        m = reduced_size(x_hat.shape, axes)
        inv_m = 1.0 / max(m, 1)
        gx = None
        if gx_hat is not None:
            gx = inv_std * project(gx_hat, x_hat, axes, inv_m)
        if ginv_std is not None:
            # d inv_std / dx = -inv_std^2 * x_hat / m
            g = x_hat * (ginv_std * inv_std * inv_std * -inv_m)
            gx = g if gx is None else gx + g
        return gx,


def project(g: Variable, x_hat: Variable, axes: tuple, inv_m: float) -> Variable:
    """``g - mean(g) - x_hat * mean(g * x_hat)`` over ``axes`` (what normalization's Jacobian
    does to a gradient, up to the factor ``inv_std``)."""
    # Mean nodes, not sum * inv_m: a float16 sum overflows past 65504 (Mean sums in float32).
    m = reduced_size(g.shape, axes)
    mean_g = Mean(axes, True, m).apply((g,))[0]
    mean_gx = Mean(axes, True, m).apply((g * x_hat,))[0]
    return g - mean_g - x_hat * mean_gx


def standardize(x: Any, axes: tuple, eps: float) -> tuple:
    """Apply :class:`Standardize`; returns Variables ``(x_hat, inv_std)``."""
    return Standardize(axes, eps).apply((x,))
