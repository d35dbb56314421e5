"""``im2col``: image patches moved to the channel axis, as a differentiable function."""
from __future__ import annotations

from typing import Any, Sequence, Union

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.connection import _conv_utils
from chainlet.utils import conv_nd
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]


class Im2Col(FunctionNode):
    """``y[n, (c, u, v), i, j] = x_pad[n, c, s_Y i + d_Y u, s_X j + d_X v]``; linear in ``x``."""

    def __init__(self, ksize: IntOrPair, stride: IntOrPair = 1, pad: IntOrPair = 0,
                 cover_all: bool = False, dilate: IntOrPair = 1) -> None:
        self.ksize = _conv_utils.as_tuple('im2col', 'ksize', ksize, 2, 1)
        self.stride = _conv_utils.as_tuple('im2col', 'stride', stride, 2, 1)
        self.pad = _conv_utils.as_tuple('im2col', 'pad', pad, 2, 0)
        self.dilate = _conv_utils.as_tuple('im2col', 'dilate', dilate, 2, 1)
        self.cover_all = bool(cover_all)

    def _check_arrays(self, in_data):
        type_check.count('im2col', in_data, 1)
        type_check.argument('im2col', 'x', in_data[0], kind='f', ndim=4)

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        outsize = _conv_utils.conv_outsizes('im2col', x.shape[2:], self.ksize, self.stride,
                                            self.pad, self.cover_all, self.dilate)
        col = conv_nd.im2col_nd_cpu(x, self.ksize, self.stride, self.pad, 0, self.cover_all,
                                    self.dilate, outsize)
        n, c = x.shape[:2]
        return col.reshape((n, c * self.ksize[0] * self.ksize[1]) + outsize),

    def backward(self, indexes, grad_outputs):
        return Im2ColGrad(self).apply(grad_outputs)


class Im2ColGrad(FunctionNode):
    """Adjoint of :class:`Im2Col` (``col2im``): patches added back into an image."""

    def __init__(self, im2col_node: Im2Col) -> None:
        self.node = im2col_node

    def forward(self, inputs):
        gy, = inputs
        node = self.node
        n, c, h, w = node._in_shape
        col = gy.reshape((n, c) + node.ksize + gy.shape[2:])
        return conv_nd.col2im_nd_cpu(col, node.stride, node.pad, (h, w), node.dilate),

    def backward(self, indexes, grad_outputs):
        node = self.node
        again = Im2Col(node.ksize, node.stride, node.pad, node.cover_all, node.dilate)
        return again.apply(grad_outputs)


def im2col(x: Any, ksize: IntOrPair, stride: IntOrPair = 1, pad: IntOrPair = 0,
           cover_all: bool = False, dilate: IntOrPair = 1) -> Variable:
    """Extract the filter-sized patches of an image into the channel axis.

    Patches start at ``-pad`` and move by ``stride``; each one becomes a vector of length
    ``c * k_H * k_W`` ordered channel first, then kernel row, then kernel column. The number of
    patch positions is the output size of :func:`~chainlet.functions.convolution_2d` with the
    same arguments (``cover_all`` adds positions so every pixel is covered; pixels outside the
    image read zero).

    Args:
        x: Input of shape ``(n, c, h, w)``.
        ksize: Int or pair ``(k_H, k_W)``, size of the patches.
        stride: Int or pair ``(s_Y, s_X)``.
        pad: Int or pair ``(p_H, p_W)`` of zero padding.
        cover_all: Add patch positions so that all pixels are covered.
        dilate: Int or pair ``(d_Y, d_X)``, spacing between the sampled pixels.

    Returns:
        Variable of shape ``(n, c * k_H * k_W, h_O, w_O)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
        >>> y = F.im2col(x, 2)
        >>> y.shape
        (1, 4, 2, 2)
        >>> y.array[0, :, 0, 0]
        array([0., 1., 3., 4.], dtype=float32)
    """
    return Im2Col(ksize, stride, pad, cover_all, dilate).apply((x,))[0]
