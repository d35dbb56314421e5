"""Depthwise two-dimensional convolution, ``depthwise_convolution_2d``.

It is a grouped convolution with one group per input channel, so it reuses
:class:`~chainlet.functions.connection.convolution_2d.Convolution2DFunction` on a rearranged
filter, which also makes it differentiable to any order.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet import type_check
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.transpose import transpose
from chainlet.functions.connection.convolution_2d import Convolution2DFunction
from chainlet.functions.connection.convolution_nd import _apply
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]

_NAME = 'depthwise_convolution_2d'


def _check(x: Any, W: Any, b: Any) -> None:
    type_check.argument(_NAME, 'x', x, kind='f', ndim=4)
    type_check.argument(_NAME, 'W', W, kind='f', ndim=4)
    if W.shape[1] != x.shape[1]:
        raise type_check.fail(_NAME, 'W', f'{x.shape[1]} channels on axis 1 (x has shape '
                              f'{x.shape})', f'W of shape {W.shape}')
    if b is not None:
        type_check.argument(_NAME, 'b', b, dtype=x.dtype, ndim=1)
        if b.shape[0] != W.shape[0] * W.shape[1]:
            raise type_check.fail(_NAME, 'b', f'shape ({W.shape[0] * W.shape[1]},) '
                                  f'(channel_multiplier * in_channels)', f'shape {b.shape}')


def depthwise_convolution_2d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrPair = 1,
                             pad: IntOrPair = 0) -> Variable:
    """Depthwise 2-D convolution: each input channel is convolved with its own filters.

    With ``c_M`` filters per channel (the channel multiplier), output channel ``c * c_M + m``
    is ``y[n, c * c_M + m] = conv2d(x[n, c], W[m, c]) + b[c * c_M + m]``, i.e. a grouped
    convolution with ``groups = c_I``.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filters of shape ``(c_M, c_I, k_H, k_W)``.
        b: Optional bias of shape ``(c_M * c_I,)``, same dtype as ``x``.
        stride: Int or pair of positive ints.
        pad: Int or pair of non-negative ints (zero padding).

    Returns:
        Variable of shape ``(n, c_M * c_I, h_O, w_O)``, with ``h_O`` and ``w_O`` as in
        :func:`convolution_2d`.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((1, 2, 3, 3), np.float32)
        >>> W = np.stack([np.ones((2, 2, 2)), 2 * np.ones((2, 2, 2))]).astype(np.float32)
        >>> y = F.depthwise_convolution_2d(x, W)
        >>> y.shape
        (1, 4, 2, 2)
        >>> y.array[0, :, 0, 0]
        array([4., 8., 4., 8.], dtype=float32)
    """
    _check(x, W, b)
    c_m, c_i, kh, kw = W.shape
    # Filter (c_M, c_I, kh, kw) -> grouped filter (c_I * c_M, 1, kh, kw), channel c * c_M + m.
    W_grouped = reshape(transpose(W, (1, 0, 2, 3)), (c_i * c_m, 1, kh, kw))
    node = Convolution2DFunction(stride, pad, groups=c_i, func_name=_NAME)
    return _apply(node, x, W_grouped, b)
