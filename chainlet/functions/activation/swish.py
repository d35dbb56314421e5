"""Swish with a parameter ``beta``, and SiLU (swish with ``beta = 1``)."""
from __future__ import annotations

from typing import Any

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions import _cuda_kernels
from chainlet.functions.activation.sigmoid import sigmoid, sigmoid_array
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.sum_to import sum_to
from chainlet.variable import Variable


def _extended_shape(beta: Any, x: Any) -> tuple:
    return (1,) + tuple(beta.shape) + (1,) * (x.ndim - beta.ndim - 1)


class Swish(FunctionNode):
    """``y = x * sigmoid(beta * x)``, ``beta`` broadcast from axis 1 of ``x``."""

    def _check_arrays(self, in_data):
        x, beta = in_data
        type_check.argument('swish', 'x', x, kind='f', min_ndim=1)
        type_check.argument('swish', 'beta', beta, kind='f')
        type_check.same_dtype('swish', ('x', 'beta'), (x, beta))
        if x.ndim < beta.ndim + 1 or tuple(x.shape[1:1 + beta.ndim]) != tuple(beta.shape):
            raise type_check.fail('swish', 'beta', f'shape x.shape[1:1 + beta.ndim] (x has '
                                  f'shape {x.shape})', str(beta.shape))

    def forward(self, inputs):
        x, beta = inputs
        self.retain_inputs((0, 1))
        return x * sigmoid_array(beta.reshape(_extended_shape(beta, x)) * x),

    def forward_gpu(self, inputs):
        x, beta = inputs
        self.retain_inputs((0, 1))
        return _cuda_kernels.swish(x, beta.reshape(_extended_shape(beta, x))),

    def backward(self, indexes, grad_outputs):
        x, beta = self.get_retained_inputs()
        gy, = grad_outputs
        ext = _extended_shape(beta, x)
        b = broadcast_to(reshape(beta, ext), x.shape)
        s = sigmoid(b * x)
        y = x * s
        ret = []
        for i in indexes:
            if i == 0:
                # d/dx x s(bx) = s + b y (1 - s)
                ret.append(gy * (s + b * y * (1.0 - s)))
            else:
                # d/db x s(bx) = x^2 s (1 - s) = y (x - y)
                ret.append(reshape(sum_to(gy * y * (x - y), ext), beta.shape))
        return tuple(ret)


class SiLU(FunctionNode):
    """``y = x * sigmoid(x)``."""

    def _check_arrays(self, in_data):
        type_check.argument('silu', 'x', in_data[0], kind='f')

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return x * sigmoid_array(x),

    def forward_gpu(self, inputs):
        self.retain_inputs((0,))
        return _cuda_kernels.silu(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        s = sigmoid(x)
        return grad_outputs[0] * (s * (1.0 + x * (1.0 - s))),


def swish(x: Any, beta: Any) -> Variable:
    """Swish, :math:`y = x \\cdot \\sigma(\\beta x)`, with a parameter array :math:`\\beta`.

    :math:`f(x, 0) = x / 2` and :math:`f(x, \\beta) \\to \\max(x, 0)` as
    :math:`\\beta \\to \\infty`. ``beta`` is reshaped to ``(1,) + beta.shape + (1, ..., 1)``
    and broadcast to ``x``; it gets a gradient, so it can be learned.

    Args:
        x: Variable or array of floats, shape ``(s_B, s_1, ..., s_N)``.
        beta: Variable or array of the same dtype, shape ``(s_1, ..., s_M)`` with
            ``0 <= M <= N``.

    Returns:
        Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[-1.0, 0.0, 2.0]], np.float32)
        >>> F.swish(x, np.array(0.0, np.float32)).array
        array([[-0.5,  0. ,  1. ]], dtype=float32)
    """
    return Swish().apply((x, beta))[0]


def silu(x: Any) -> Variable:
    """SiLU, :math:`y = x \\cdot \\sigma(x)` (swish with :math:`\\beta = 1`). Not in Chainer.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.silu(np.array([-1.0, 0.0, 1.0], np.float32)).array
        array([-0.2689414,  0.       ,  0.7310586], dtype=float32)
    """
    return SiLU().apply((x,))[0]
