"""``local_convolution_2d``: a convolution whose filter differs at every output position.

The windows of the input are laid out once with ``im2col`` (no padding) and each output position
``p`` gets its own product ``(n, K) @ (K, c_O)`` with ``K = c_I k_H k_W``: one batched matrix
product over the positions. The gradients are the two transposed products and, for ``x``,
``col2im`` (the adjoint of ``im2col``); they are written with chainlet functions
(``matmul``, ``im2col``'s gradient node), so double backprop works.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.connection import _conv_utils
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]


def _by_position(col: Any, n: int, K: int, P: int) -> Any:
    """``(n, K, *o)`` -> ``(P, n, K)``: the windows grouped by output position."""
    from chainlet.functions.array.reshape import reshape
    from chainlet.functions.array.transpose import transpose
    return transpose(reshape(col, (n, K, P)), (2, 0, 1))


class LocalConvolution2DFunction(FunctionNode):
    """``y[n, o, i, j] = b[o, i, j] + sum_{c, u, v} W[o, i, j, c, u, v] x[n, c, s_Y i + u,
    s_X j + v]``."""

    def __init__(self, stride: IntOrPair = 1) -> None:
        self.stride = _conv_utils.as_tuple('local_convolution_2d', 'stride', stride, 2, 1)

    def _check_arrays(self, in_data):
        func = 'local_convolution_2d'
        type_check.count(func, in_data, (2, 3))
        x, W = in_data[:2]
        type_check.argument(func, 'x', x, kind='f', ndim=4)
        type_check.argument(func, 'W', W, kind='f', ndim=6)
        if W.shape[3] != x.shape[1]:
            raise type_check.fail(func, 'W', f'{x.shape[1]} input channels on axis 3 (x has '
                                  f'shape {x.shape})', f'W of shape {W.shape}')
        outsize = tuple(_conv_utils.get_conv_outsize(size, k, s, 0) for size, k, s
                        in zip(x.shape[2:], W.shape[4:], self.stride))
        if W.shape[1:3] != outsize:
            raise type_check.fail(func, 'W', f'{outsize} output positions on axes 1 and 2 '
                                  f'(x of shape {x.shape}, kernel {W.shape[4:]}, stride '
                                  f'{self.stride}, no padding)', f'W of shape {W.shape}')
        if len(in_data) == 3:
            type_check.argument(func, 'b', in_data[2], dtype=x.dtype, shape=W.shape[:3])

    def forward(self, inputs):
        x, W = inputs[:2]
        xp = backend.get_array_module(x)
        self.retain_inputs((0, 1))
        n = x.shape[0]
        out_c, oh, ow = W.shape[:3]
        K = x.shape[1] * W.shape[4] * W.shape[5]
        col = _conv_utils.im2col(x, W.shape[4:], self.stride, (0, 0), outsize=(oh, ow))
        col = col.reshape(n, K, oh * ow).transpose(2, 0, 1)
        w = W.reshape(out_c, oh * ow, K).transpose(1, 2, 0)
        y = xp.matmul(col, w)  # (P, n, out_c)
        y = y.transpose(1, 2, 0).reshape(n, out_c, oh, ow).astype(x.dtype, copy=False)
        if len(inputs) == 3:
            y = y + inputs[2]
        return y,

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.cast import cast
        from chainlet.functions.array.im2col import Im2Col, Im2ColGrad, im2col
        from chainlet.functions.array.reshape import reshape
        from chainlet.functions.array.transpose import transpose
        from chainlet.functions.math.matmul import matmul
        from chainlet.functions.math.sum import sum as sum_
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        n, c = x.shape[:2]
        out_c, oh, ow = W.shape[:3]
        ksize = W.shape[4:]
        K = c * ksize[0] * ksize[1]
        P = oh * ow
        gyp = transpose(reshape(gy, (n, out_c, P)), (2, 0, 1))  # (P, n, out_c)
        ret = []
        if 0 in indexes:
            wp = transpose(reshape(W, (out_c, P, K)), (1, 0, 2))  # (P, out_c, K)
            gcol = matmul(gyp, cast(wp, gy.dtype) if W.dtype != gy.dtype else wp)
            gcol = reshape(transpose(gcol, (1, 2, 0)), (n, K, oh, ow))
            node = Im2Col(ksize, self.stride)
            node._in_shape = x.shape
            ret.append(Im2ColGrad(node).apply((gcol,))[0])
        if 1 in indexes:
            colp = _by_position(im2col(x, ksize, self.stride), n, K, P)
            gw = matmul(gyp, colp, transa=True)  # (P, out_c, K)
            gw = reshape(transpose(gw, (1, 0, 2)), W.shape)
            ret.append(cast(gw, W.dtype) if gw.dtype != W.dtype else gw)
        if 2 in indexes:
            ret.append(sum_(gy, axis=0))
        return tuple(ret)


def local_convolution_2d(x: Any, W: Any, b: Optional[Any] = None,
                         stride: IntOrPair = 1) -> Variable:
    """Two-dimensional locally connected layer: a convolution with unshared filters.

    Like :func:`~chainlet.functions.convolution_2d` without padding, except that every output
    position ``(i, j)`` has its own filter ``W[:, i, j]`` and bias ``b[:, i, j]``:

    ``y[n, o, i, j] = b[o, i, j] + sum_{c, u, v} W[o, i, j, c, u, v] x[n, c, s_Y i + u,
    s_X j + v]``.

    Args:
        x: Float input of shape ``(n, c_I, h, w)``.
        W: Float filters of shape ``(c_O, h_O, w_O, c_I, k_H, k_W)``, where ``h_O`` and
            ``w_O`` must be the output size of a convolution without padding:
            ``h_O = (h - k_H) // s_Y + 1`` and ``w_O = (w - k_W) // s_X + 1``.
        b: Optional bias of shape ``(c_O, h_O, w_O)`` and the dtype of ``x``.
        stride: Int or pair of positive ints ``(s_Y, s_X)``.

    Returns:
        Variable of shape ``(n, c_O, h_O, w_O)`` and the dtype of ``x``.

    Raises:
        TypeError: Non-float inputs, wrong ranks, or channel/position/bias shapes that do not
            match.
        ValueError: Non-positive ``stride``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((2, 3, 7, 7), np.float32)
        >>> W = np.ones((4, 5, 5, 3, 3, 3), np.float32)
        >>> y = F.local_convolution_2d(x, W, np.zeros((4, 5, 5), np.float32))
        >>> y.shape, float(y.array[0, 0, 0, 0])
        ((2, 4, 5, 5), 27.0)
    """
    fnode = LocalConvolution2DFunction(stride)
    args = (x, W) if b is None else (x, W, b)
    return fnode.apply(args)[0]
