"""Gaussian error linear unit."""
from __future__ import annotations

import math
from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.math.erf import ndtr_array
from chainlet.functions.math.exponential import exp
from chainlet.variable import Variable

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)


def _normal_pdf(x: Any) -> Any:
    xp = backend.get_array_module(x)
    dt = x.dtype.type
    # The density is exactly 0 in double precision beyond |x| ~ 38.6; clipping keeps x * x
    # from overflowing for huge inputs.
    xc = xp.minimum(xp.abs(x), dt(40))
    return xp.exp(xc * xc * dt(-0.5)) * dt(_INV_SQRT_2PI)


class GELU(FunctionNode):
    """``y = x * Phi(x)`` with the exact normal CDF ``Phi``."""

    def _check_arrays(self, in_data):
        type_check.argument('gelu', 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return x * ndtr_array(x),

    def forward_gpu(self, inputs):
        self.retain_inputs((0,))
        return _cuda_kernels.gelu(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return GELUGrad().apply((x, grad_outputs[0]))


class GELUGrad(FunctionNode):
    """``gx = gy * (Phi(x) + x * phi(x))``; differentiable in ``x`` and ``gy``."""

    def forward(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        return gy * (ndtr_array(x) + x * _normal_pdf(x)),

    def forward_gpu(self, inputs):
        self.retain_inputs((0, 1))
        return _cuda_kernels.gelu_grad(*inputs),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                # d/dx (Phi + x phi) = phi * (2 - x^2), which is 0 to double precision for
                # |x| >= 40; masking those entries keeps x * x finite (float16 overflows
                # beyond |x| = 256).
                xd = x.array
                mask = (abs(xd) < 40).astype(xd.dtype)
                xm = x * mask
                xx = xm * xm
                phi = exp(xx * -0.5) * (mask * xd.dtype.type(_INV_SQRT_2PI))
                ret.append(ggx * gy * phi * (2.0 - xx))
            else:
                ret.append(GELUGrad().apply((x, ggx))[0])
        return tuple(ret)


def gelu(x: Any) -> Variable:
    """Gaussian error linear unit,
    :math:`y = x \\Phi(x) = \\frac{x}{2} (1 + \\mathrm{erf}(x / \\sqrt{2}))`.

    The exact (erf) form, not the tanh approximation; accurate to about 1e-13 relative in
    float64. Not part of Chainer 7.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.gelu(np.array([-1.0, 0.0, 1.0])).array
        array([-0.15865525,  0.        ,  0.84134475])
    """
    return GELU().apply((x,))[0]
