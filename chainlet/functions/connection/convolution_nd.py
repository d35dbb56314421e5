"""N-dimensional convolution (``convolution_nd``, ``convolution_1d``, ``convolution_3d``).

The gradient with respect to ``x`` is a deconvolution with the same filter, the gradient with
respect to ``W`` is :class:`ConvolutionNDGradW`, whose own gradients are again a convolution
and a deconvolution; so every order of differentiation stays within these three nodes.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.connection import _conv_utils
from chainlet.variable import Variable

IntOrTuple = Union[int, Sequence[int]]


def _conv_node(ndim: int, stride: tuple, pad: tuple, cover_all: Any, dilate: tuple,
               groups: int) -> 'ConvolutionND':
    if ndim == 2:
        from chainlet.functions.connection.convolution_2d import Convolution2DFunction
        return Convolution2DFunction(stride, pad, cover_all, dilate=dilate, groups=groups)
    return ConvolutionND(ndim, stride, pad, cover_all, dilate, groups)


def _deconv_node(ndim: int, stride: tuple, pad: tuple, outsize: tuple, dilate: tuple,
                 groups: int) -> FunctionNode:
    if ndim == 2:
        from chainlet.functions.connection.deconvolution_2d import Deconvolution2DFunction
        return Deconvolution2DFunction(stride, pad, outsize, dilate=dilate, groups=groups)
    from chainlet.functions.connection.deconvolution_nd import DeconvolutionND
    return DeconvolutionND(ndim, stride, pad, outsize, dilate, groups)


def _grad_w_node(conv: Any, ksize: tuple, W_dtype: Any) -> 'ConvolutionNDGradW':
    if conv.ndim == 2:
        from chainlet.functions.connection.convolution_2d import Convolution2DGradW
        return Convolution2DGradW(conv, ksize, W_dtype)
    return ConvolutionNDGradW(conv, ksize, W_dtype)


def _sum_bias_grad(gy: Variable) -> Variable:
    from chainlet.functions.math.sum import sum as _sum
    return _sum(gy, axis=(0,) + tuple(range(2, gy.ndim)))


class ConvolutionND(FunctionNode):
    """``y = conv(x, W) + b`` over ``ndim`` spatial axes, channels first, with groups.

    Args:
        ndim: Number of spatial axes.
        stride, pad, dilate, groups: See :func:`convolution_nd`.
        cover_all: A bool, or one bool per axis (used by the gradient of a deconvolution).
        func_name: Public name used in error messages.
    """

    def __init__(self, ndim: int, stride: IntOrTuple = 1, pad: IntOrTuple = 0,
                 cover_all: Any = False, dilate: IntOrTuple = 1, groups: int = 1, *,
                 func_name: str = 'convolution_nd') -> None:
        self.ndim = ndim
        self.func_name = func_name
        self.stride = _conv_utils.as_tuple(func_name, 'stride', stride, ndim, 1)
        self.pad = _conv_utils.as_tuple(func_name, 'pad', pad, ndim, 0)
        self.dilate = _conv_utils.as_tuple(func_name, 'dilate', dilate, ndim, 1)
        self.groups = _conv_utils.check_groups(func_name, groups)
        self.cover_all = cover_all
        self._cover_all = _conv_utils.per_axis(cover_all, ndim)

    def _check_arrays(self, in_data):
        _conv_utils.check_inputs(self.func_name, in_data, self.ndim, self.groups, False)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        outsize = _conv_utils.conv_outsizes(self.func_name, x.shape[2:], W.shape[2:],
                                            self.stride, self.pad, self._cover_all,
                                            self.dilate)
        y = _conv_utils.conv_forward(x, W, self.stride, self.pad, self.dilate, self.groups,
                                     outsize)
        if len(inputs) == 3:
            y += inputs[2].reshape((1, y.shape[1]) + (1,) * self.ndim)
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                deconv = _deconv_node(self.ndim, self.stride, self.pad, x.shape[2:],
                                      self.dilate, self.groups)
                ret.append(deconv.apply((gy, W))[0])
            elif i == 1:
                ret.append(_grad_w_node(self, W.shape[2:], W.dtype).apply((x, gy))[0])
            else:
                ret.append(_sum_bias_grad(gy))
        return tuple(ret)


class ConvolutionNDGradW(FunctionNode):
    """Gradient of a convolution with respect to its filter, from ``(x, gy)``.

    Also serves deconvolutions, called with ``(gy, x)``: a deconvolution is the transpose of
    the convolution with the same filter.

    Args:
        conv: The ``ConvolutionND`` or ``DeconvolutionND`` node whose hyper-parameters to use
            (for a deconvolution, after its forward).
        ksize: Spatial shape of the filter.
        W_dtype: dtype of the filter (the gradient is cast to it).
    """

    def __init__(self, conv: Any, ksize: Sequence[int], W_dtype: Any) -> None:
        self.ndim = conv.ndim
        self.stride = conv.stride
        self.pad = conv.pad
        self.dilate = conv.dilate
        self.groups = conv.groups
        self._cover_all = conv._cover_all
        self.ksize = tuple(ksize)
        self.W_dtype = W_dtype

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, gy = inputs
        gW = _conv_utils.conv_grad_w(x, gy, self.ksize, self.stride, self.pad, self.dilate,
                                     self.groups, self.W_dtype)
        return gW,

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggW, = grad_outputs
        ret = []
        for i in indexes:
            if i == 0:
                deconv = _deconv_node(self.ndim, self.stride, self.pad, x.shape[2:],
                                      self.dilate, self.groups)
                ret.append(deconv.apply((gy, ggW))[0])
            else:
                conv = _conv_node(self.ndim, self.stride, self.pad, self._cover_all,
                                  self.dilate, self.groups)
                ret.append(conv.apply((x, ggW))[0])
        return tuple(ret)


def _apply(node: FunctionNode, x: Any, W: Any, b: Any) -> Variable:
    args = (x, W) if b is None else (x, W, b)
    return node.apply(args)[0]


def _check_spatial_ndim(func: str, x: Any, nd: int) -> None:
    # The fixed-rank wrappers reject another rank before the type check, with a ValueError as
    # in Chainer (InvalidValue is also the InvalidType of the type check).
    from chainlet.functions.array._util import check_array, invalid_value
    shape = check_array(func, 'x', x).shape
    if len(shape) != nd + 2:
        raise invalid_value(func, 'x', f'ndim {nd + 2}', f'shape {shape}')


def _spatial_ndim(func: str, x: Any) -> int:
    # The number of spatial axes comes from x, so its rank is checked before anything else.
    type_check.argument(func, 'x', x, min_ndim=3)
    return x.ndim - 2


def convolution_nd(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrTuple = 1,
                   pad: IntOrTuple = 0, cover_all: bool = False, dilate: IntOrTuple = 1,
                   groups: int = 1) -> Variable:
    """N-dimensional convolution (cross-correlation), channels first.

    With ``N`` spatial axes, ``y[n, o, i_1..i_N] = b[o] + sum_{c, j} W[o, c, j_1..j_N]
    x_pad[n, g(o) * c_I / G + c, s_1 i_1 + d_1 j_1, ..., s_N i_N + d_N j_N]`` where ``x_pad`` is
    ``x`` zero-padded by ``p`` on both sides and ``g(o)`` the group of output channel ``o``.
    The output length on each axis is ``(d + 2p - dk) // s + 1`` with the dilated kernel extent
    ``dk = k + (k - 1)(d - 1)`` (``cover_all`` adds ``s - 1`` to the numerator, so that the
    last input elements are covered by a window).

    Args:
        x: Input of shape ``(n, c_I, d_1, ..., d_N)``.
        W: Filter of shape ``(c_O, c_I / groups, k_1, ..., k_N)``.
        b: Optional bias of shape ``(c_O,)``, same dtype as ``x``.
        stride: Int or tuple of ``N`` positive ints.
        pad: Int or tuple of ``N`` non-negative ints (zero padding on both sides).
        cover_all: Extend the output so that all input elements take part (see above).
        dilate: Int or tuple of ``N`` positive ints (spacing between filter taps).
        groups: Number of channel groups; ``c_I`` and ``c_O`` must be multiples of it.

    Returns:
        Variable of shape ``(n, c_O, l_1, ..., l_N)`` and the dtype of ``x``.

    Raises:
        TypeError: Non-float inputs, wrong ranks, channel or bias mismatches, wrong kinds of
            hyper-parameters.
        ValueError: Non-positive ``stride``/``dilate``/``groups``, negative ``pad``, or a
            kernel larger than the padded input.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((1, 2, 4, 4, 4), np.float32)
        >>> W = np.ones((3, 2, 2, 2, 2), np.float32)
        >>> y = F.convolution_nd(x, W, stride=2)
        >>> y.shape
        (1, 3, 2, 2, 2)
        >>> float(y.array[0, 0, 0, 0, 0])
        16.0
    """
    ndim = _spatial_ndim('convolution_nd', x)
    node = ConvolutionND(ndim, stride, pad, cover_all, dilate, groups)
    return _apply(node, x, W, b)


def convolution_1d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrTuple = 1,
                   pad: IntOrTuple = 0, cover_all: bool = False, dilate: IntOrTuple = 1,
                   groups: int = 1) -> Variable:
    """1-D convolution: :func:`convolution_nd` with one spatial axis.

    Args:
        x: Input of shape ``(n, c_I, l)``.
        W: Filter of shape ``(c_O, c_I / groups, k)``.
        b: Optional bias of shape ``(c_O,)``.
        stride, pad, cover_all, dilate, groups: As in :func:`convolution_nd`.

    Returns:
        Variable of shape ``(n, c_O, l_O)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
        >>> W = np.array([[[1.0, -1.0]]], np.float32)
        >>> F.convolution_1d(x, W).array
        array([[[-1., -1., -1., -1.]]], dtype=float32)
    """
    _check_spatial_ndim('convolution_1d', x, 1)
    return _apply(ConvolutionND(1, stride, pad, cover_all, dilate, groups,
                                func_name='convolution_1d'), x, W, b)


def convolution_3d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrTuple = 1,
                   pad: IntOrTuple = 0, cover_all: bool = False, dilate: IntOrTuple = 1,
                   groups: int = 1) -> Variable:
    """3-D convolution: :func:`convolution_nd` with three spatial axes.

    Args:
        x: Input of shape ``(n, c_I, d, h, w)``.
        W: Filter of shape ``(c_O, c_I / groups, k_D, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``.
        stride, pad, cover_all, dilate, groups: As in :func:`convolution_nd`.

    Returns:
        Variable of shape ``(n, c_O, d_O, h_O, w_O)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((2, 1, 3, 3, 3), np.float32)
        >>> F.convolution_3d(x, np.ones((4, 1, 3, 3, 3), np.float32), pad=1).shape
        (2, 4, 3, 3, 3)
    """
    _check_spatial_ndim('convolution_3d', x, 3)
    return _apply(ConvolutionND(3, stride, pad, cover_all, dilate, groups,
                                func_name='convolution_3d'), x, W, b)
