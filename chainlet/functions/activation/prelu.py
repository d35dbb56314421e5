"""Parametric ReLU."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.sum_to import sum_to
from chainlet.variable import Variable


def _extended_shape(W: Any, x: Any) -> tuple:
    # W covers the axes 1 .. W.ndim of x; batch and trailing axes broadcast.
    return (1,) + tuple(W.shape) + (1,) * (x.ndim - W.ndim - 1)


class PReLUFunction(FunctionNode):
    """``y = x`` for ``x >= 0``, ``W * x`` otherwise, ``W`` broadcast from axis 1 (Chainer's
    class name, which hooks and graph exporters such as onnx_chainer report and read)."""

    def _check_arrays(self, in_data):
        x, W = in_data
        type_check.argument('prelu', 'x', x, kind='f')
        type_check.argument('prelu', 'W', W, kind='f')
        type_check.same_dtype('prelu', ('x', 'W'), (x, W))
        if x.ndim < W.ndim + 1 or tuple(x.shape[1:1 + W.ndim]) != tuple(W.shape):
            raise type_check.fail('prelu', 'W', f'shape x.shape[1:1 + W.ndim] (x has shape '
                                  f'{x.shape})', str(W.shape))

    def forward(self, inputs):
        x, W = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        Wx = x * W.reshape(_extended_shape(W, x))
        return xp.where(x >= 0, x, Wx),

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        xd = x.array
        ext = _extended_shape(W, xd)
        neg = (xd < 0).astype(xd.dtype)  # 1 where the slope W applies
        ret = []
        for i in indexes:
            if i == 0:
                W_b = broadcast_to(reshape(W, ext), xd.shape)
                ret.append(gy * ((1 - neg) + W_b * neg))
            else:
                ret.append(reshape(sum_to(gy * x * neg, ext), W.shape))
        return tuple(ret)


PReLU = PReLUFunction  # the name chainlet's node had before


def prelu(x: Any, W: Any) -> Variable:
    """Parametric ReLU: :math:`y = x` if :math:`x \\ge 0`, else :math:`W x`.

    ``W`` is shared over the batch axis and over the axes after ``1 + W.ndim``: it is
    reshaped to ``(1,) + W.shape + (1, ..., 1)`` and broadcast to ``x``.

    Args:
        x: Variable or array of floats, shape ``(s_B, s_1, ..., s_N)``.
        W: Variable or array of the same dtype, shape ``(s_1, ..., s_M)`` with ``M <= N``.

    Returns:
        Variable of the shape and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[-1.0, 2.0], [-3.0, -4.0]], np.float32)
        >>> F.prelu(x, np.array([0.1, 0.5], np.float32)).array
        array([[-0.1,  2. ],
               [-0.3, -2. ]], dtype=float32)
    """
    return PReLUFunction().apply((x, W))[0]
