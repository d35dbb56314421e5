"""Exponential linear unit (also the node behind ``selu`` and ``celu``)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.activation._util import real_param
from chainlet.functions.math.exponential import exp
from chainlet.variable import Variable


class ELU(FunctionNode):
    """``y = scale * x`` for ``x > 0``, ``scale * alpha * (exp(rate * x) - 1)`` otherwise.

    ``elu`` is ``scale = rate = 1``, ``selu`` sets ``scale``, ``celu`` sets ``rate = 1/alpha``.
    Only ``x`` is retained: the gradient ``scale * alpha * rate * exp(rate * x)`` computed from
    ``x`` is accurate even where ``y + alpha`` would cancel.
    """

    def __init__(self, alpha: float = 1.0, scale: float = 1.0, rate: float = 1.0,
                 name: str = 'elu') -> None:
        self.alpha = alpha
        self.scale = scale
        self.rate = rate
        self.name = name

    @property
    def label(self) -> str:
        return self.name

    def _check_arrays(self, in_data):
        type_check.argument(self.name, 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        dt = x.dtype.type
        self.retain_inputs((0,))
        # expm1 only sees x <= 0, so a large positive x cannot overflow it.
        neg = xp.expm1(xp.minimum(x, dt(0)) * dt(self.rate)) * dt(self.alpha * self.scale)
        pos = x if self.scale == 1.0 else x * dt(self.scale)
        return xp.where(x > 0, pos, neg),

    def forward_gpu(self, inputs):
        self.retain_inputs((0,))
        return _cuda_kernels.elu(inputs[0], self.scale, self.alpha * self.scale, self.rate),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return ELUGrad(self.alpha, self.scale, self.rate).apply((x, grad_outputs[0]))


class ELUGrad(FunctionNode):
    """``gx = gy * f'(x)`` with ``f'(x) = scale`` for ``x > 0``, else
    ``scale * alpha * rate * exp(rate * x)``; differentiable in ``x`` and ``gy``."""

    def __init__(self, alpha: float, scale: float, rate: float) -> None:
        self.alpha = alpha
        self.scale = scale
        self.rate = rate

    def forward(self, inputs):
        x, gy = inputs
        xp = backend.get_array_module(x)
        dt = x.dtype.type
        self.retain_inputs((0, 1))
        neg = xp.exp(xp.minimum(x, dt(0)) * dt(self.rate)) * \
            dt(self.scale * self.alpha * self.rate)
        return gy * xp.where(x > 0, dt(self.scale), neg),

    def forward_gpu(self, inputs):
        x, gy = inputs
        self.retain_inputs((0, 1))
        coef = self.scale * self.alpha * self.rate
        return _cuda_kernels.elu_grad(x, gy, self.scale, coef, self.rate),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                # f''(x) = scale * alpha * rate^2 * exp(rate * x) on x <= 0, zero elsewhere.
                xd = x.array
                dt = xd.dtype.type
                mask = (xd <= 0).astype(xd.dtype)
                e = exp(x * mask * self.rate)
                coef = mask * dt(self.scale * self.alpha * self.rate * self.rate)
                ret.append(ggx * gy * e * coef)
            else:
                ret.append(ELUGrad(self.alpha, self.scale, self.rate).apply((x, ggx))[0])
        return tuple(ret)


def elu(x: Any, alpha: float = 1.0) -> Variable:
    """Exponential linear unit: :math:`y = x` if :math:`x > 0`, else
    :math:`\\alpha (e^x - 1)`.

    Args:
        x: Variable or array of floats, any shape.
        alpha: The parameter :math:`\\alpha` (a real number; the value the output tends to
            as ``x -> -inf`` is ``-alpha``).

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.elu(np.array([-1.0, 0.0, 2.0], np.float32)).array
        array([-0.63212055,  0.        ,  2.        ], dtype=float32)
    """
    return ELU(real_param('elu', 'alpha', alpha)).apply((x,))[0]
