"""``dilated_convolution_2d``: Chainer's name for a 2-D convolution with dilated filters.

It is :func:`~chainlet.functions.convolution_2d` with ``dilate`` as a positional argument; the
node is the same ``Convolution2DFunction`` (labelled ``dilated_convolution_2d`` in errors).
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet.functions.connection.convolution_2d import Convolution2DFunction
from chainlet.functions.connection.convolution_nd import _apply
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]


def dilated_convolution_2d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrPair = 1,
                           pad: IntOrPair = 0, dilate: IntOrPair = 1,
                           cover_all: bool = False) -> Variable:
    """Two-dimensional convolution whose filter taps are ``dilate`` pixels apart.

    ``y[n, o, i, j] = b[o] + sum_{c, u, v} W[o, c, u, v] x_pad[n, c, s_Y i + d_Y u,
    s_X j + d_X v]``; the output size is ``(h + 2 p_H - dk_H) // s_Y + 1`` (and likewise for
    the width) with the dilated extent ``dk = k + (k - 1)(d - 1)``. See
    :func:`~chainlet.functions.convolution_2d` for the details.

    Args:
        x: Input of shape ``(n, c_I, h, w)``.
        W: Filter of shape ``(c_O, c_I, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)`` and the dtype of ``x``.
        stride: Int or pair of positive ints ``(s_Y, s_X)``.
        pad: Int or pair of non-negative ints ``(p_H, p_W)``.
        dilate: Int or pair of positive ints ``(d_Y, d_X)``.
        cover_all: Extend the output so that all input pixels take part.

    Returns:
        Variable of shape ``(n, c_O, h_O, w_O)`` and the dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(25, dtype=np.float32).reshape(1, 1, 5, 5)
        >>> F.dilated_convolution_2d(x, np.ones((1, 1, 2, 2), np.float32), dilate=4).array
        array([[[[48.]]]], dtype=float32)
    """
    node = Convolution2DFunction(stride, pad, cover_all, dilate=dilate,
                                 func_name='dilated_convolution_2d')
    return _apply(node, x, W, b)
