"""Sampling from a Gaussian with the reparameterization trick."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.exponential import exp


class Gaussian(FunctionNode):
    """``y = mean + exp(ln_var / 2) * eps`` with ``eps ~ N(0, 1)`` drawn once (or given).

    ``ln_var`` is retained; the noise ``eps`` is a constant of the node.
    """

    def __init__(self, eps: Any = None) -> None:
        self.eps = eps

    def _check_arrays(self, in_data):
        mean, ln_var = in_data
        type_check.float_input('gaussian', 'mean', mean)
        type_check.argument('gaussian', 'ln_var', ln_var, dtype=mean.dtype, shape=mean.shape)
        if self.eps is not None:
            type_check.argument('gaussian', 'eps', self.eps, shape=ln_var.shape)

    def forward(self, inputs):
        mean, ln_var = inputs
        xp = backend.get_array_module(mean)
        if self.eps is None:
            if xp is numpy:
                eps = numpy.random.standard_normal(ln_var.shape)
            else:
                # cupy.random draws no float16; draw float32 and cast.
                dtype = numpy.float32 if mean.dtype == numpy.float16 else mean.dtype
                eps = xp.random.standard_normal(ln_var.shape, dtype=dtype)
            self.eps = eps.astype(mean.dtype, copy=False)
        else:
            self.eps = xp.asarray(self.eps).astype(mean.dtype, copy=False)
        self.retain_inputs((1,))
        noise = xp.exp(ln_var * mean.dtype.type(0.5))
        noise *= self.eps
        return mean + noise,

    def backward(self, indexes, grad_outputs):
        ln_var, = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(gy)
            else:
                ret.append(gy * exp(ln_var * 0.5) * (self.eps * ln_var.dtype.type(0.5)))
        return tuple(ret)


def gaussian(mean: Any, ln_var: Any, *, eps: Any = None, return_eps: bool = False) -> Any:
    """Draw a sample of :math:`N(\\mu, \\sigma^2)` differentiably in ``mean`` and ``ln_var``.

    .. math::
        y = \\mu + \\exp(\\ln \\sigma^2 / 2) \\, \\epsilon, \\quad \\epsilon \\sim N(0, 1)

    ``eps`` is drawn from NumPy's global random state unless given. This is the
    reparameterization trick of variational auto-encoders; it samples in training and in test
    mode alike.

    Args:
        mean: Variable or array of floats, the mean :math:`\\mu`.
        ln_var: Log of the variance, same shape and dtype as ``mean``.
        eps: Optional standard normal noise of ``ln_var``'s shape, to make the result
            deterministic.
        return_eps: Also return the noise used.

    Returns:
        Variable of ``mean``'s shape and dtype, or ``(y, eps)`` when ``return_eps`` is true.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> mean = np.zeros(2, np.float32)
        >>> ln_var = np.log(np.array([1.0, 4.0], np.float32))
        >>> F.gaussian(mean, ln_var, eps=np.array([1.0, -1.0], np.float32)).array
        array([ 1., -2.], dtype=float32)
    """
    func = Gaussian(eps)
    y, = func.apply((mean, ln_var))
    if return_eps:
        return y, func.eps
    return y
