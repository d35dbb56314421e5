"""N-dimensional deconvolution (transposed convolution): ``deconvolution_nd``, ``_1d``, ``_3d``.

A deconvolution is the transpose (adjoint) of the convolution with the same filter, so its
gradient with respect to ``x`` is that convolution, and its gradient with respect to ``W`` is
``ConvolutionNDGradW`` applied to ``(gy, x)``.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import InvalidValue
from chainlet.functions.connection import _conv_utils
from chainlet.functions.connection.convolution_nd import (_apply, _check_spatial_ndim,
                                                          _conv_node, _grad_w_node,
                                                          _spatial_ndim, _sum_bias_grad)
from chainlet.variable import Variable

IntOrTuple = Union[int, Sequence[int]]


class EmptyOutputError(ValueError, AssertionError):
    """The estimated output of :func:`deconvolution_nd` would have a non-positive length.

    A ``ValueError`` (a bad combination of arguments) that is also an ``AssertionError``,
    because Chainer checks this with an ``assert`` and its tests expect that type.
    """


class DeconvolutionND(FunctionNode):
    """``y = deconv(x, W) + b`` over ``ndim`` spatial axes, channels first, with groups.

    After ``forward``, ``outsize`` holds the output spatial shape and ``cover_all`` tells
    whether that shape needs ``cover_all=True`` in the matching convolution (on at least one
    axis; the gradient uses the per-axis answer).

    Args:
        ndim: Number of spatial axes.
        stride, pad, outsize, dilate, groups: See :func:`deconvolution_nd`.
        func_name: Public name used in error messages.
    """

    cover_all: Optional[bool] = None

    def __init__(self, ndim: int, stride: IntOrTuple = 1, pad: IntOrTuple = 0,
                 outsize: Optional[Sequence[int]] = None, dilate: IntOrTuple = 1,
                 groups: int = 1, *, func_name: str = 'deconvolution_nd') -> None:
        self.ndim = ndim
        self.func_name = func_name
        self.stride = _conv_utils.as_tuple(func_name, 'stride', stride, ndim, 1)
        self.pad = _conv_utils.as_tuple(func_name, 'pad', pad, ndim, 0)
        self.dilate = _conv_utils.as_tuple(func_name, 'dilate', dilate, ndim, 1)
        self.groups = _conv_utils.check_groups(func_name, groups)
        self.outsize = None if outsize is None else \
            _conv_utils.as_tuple(func_name, 'outsize', outsize, ndim, 1)

    @property
    def outs(self) -> Optional[tuple]:
        """``outsize`` under Chainer's name (read by graph exporters such as onnx_chainer)."""
        return self.outsize

    def _check_arrays(self, in_data):
        _conv_utils.check_inputs(self.func_name, in_data, self.ndim, self.groups, True)

    def _output_shape(self, spatial: tuple, ksize: tuple) -> tuple:
        """Return the output spatial shape and set ``cover_all``; ValueError if impossible."""
        cover = []
        func = self.func_name
        outsize = self.outsize
        if outsize is None:
            outsize = tuple(
                _conv_utils.get_deconv_outsize(size, k, s, p, d=d)
                for size, k, s, p, d in zip(spatial, ksize, self.stride, self.pad, self.dilate))
            if any(o <= 0 for o in outsize):
                raise EmptyOutputError(f'{func}: the output would be empty: input spatial shape '
                                       f'{spatial}, ksize {ksize}, stride {self.stride}, pad '
                                       f'{self.pad}, dilate {self.dilate} give output size '
                                       f'{outsize}')
        for axis, (size, o, k, s, p, d) in enumerate(zip(spatial, outsize, ksize, self.stride,
                                                         self.pad, self.dilate)):
            low = _conv_utils.get_conv_outsize(o, k, s, p, False, d)
            high = _conv_utils.get_conv_outsize(o, k, s, p, True, d)
            if not low <= size <= high:
                # Chainer reports this from its type check; InvalidValue is also a ValueError.
                want = (f'a size whose convolution gives the input size {size} on spatial axis '
                        f'{axis} (ksize {k}, stride {s}, pad {p}, dilate {d})')
                raise InvalidValue(want, str(o),
                                   f'{func}: argument outsize: expected {want}, got {o}')
            cover.append(size != low)
        self._cover_all = tuple(cover)
        self.cover_all = any(cover)
        return outsize

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs[:2]
        outsize = self._output_shape(x.shape[2:], W.shape[2:])
        self.outsize = outsize
        y = _conv_utils.deconv_forward(x, W, self.stride, self.pad, self.dilate, self.groups,
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
                conv = _conv_node(self.ndim, self.stride, self.pad, self._cover_all,
                                  self.dilate, self.groups)
                ret.append(conv.apply((gy, W))[0])
            elif i == 1:
                ret.append(_grad_w_node(self, W.shape[2:], W.dtype).apply((gy, x))[0])
            else:
                ret.append(_sum_bias_grad(gy))
        return tuple(ret)


def deconvolution_nd(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrTuple = 1,
                     pad: IntOrTuple = 0, outsize: Optional[Sequence[int]] = None,
                     dilate: IntOrTuple = 1, groups: int = 1) -> Variable:
    """N-dimensional deconvolution (transposed convolution), channels first.

    The adjoint of :func:`convolution_nd` with the same filter: every input element scatters
    ``x[n, c, i] * W[c, o, j]`` to output position ``s i + d j - p`` on each axis, then ``b`` is
    added. Without ``outsize`` the output length is ``s (l - 1) + dk - 2p`` per axis with
    ``dk = k + (k - 1)(d - 1)``; ``outsize`` may instead ask for any length whose convolution
    (with or without ``cover_all``) gives back the input length.

    Args:
        x: Input of shape ``(n, c_I, l_1, ..., l_N)``.
        W: Filter of shape ``(c_I, c_O / groups, k_1, ..., k_N)``.
        b: Optional bias of shape ``(c_O,)``, same dtype as ``x``.
        stride: Int or tuple of ``N`` positive ints.
        pad: Int or tuple of ``N`` non-negative ints (cropped from both sides of the output).
        outsize: Tuple of ``N`` ints, the output spatial shape (``None``: computed).
        dilate: Int or tuple of ``N`` positive ints.
        groups: Number of channel groups; ``c_I`` must be a multiple of it.

    Returns:
        Variable of shape ``(n, c_O, o_1, ..., o_N)`` and the dtype of ``x``.

    Raises:
        TypeError: Non-float inputs, wrong ranks, channel or bias mismatches.
        ValueError: Bad hyper-parameters, or an ``outsize`` inconsistent with the input.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((1, 2, 2, 2, 2), np.float32)
        >>> W = np.ones((2, 3, 3, 3, 3), np.float32)
        >>> F.deconvolution_nd(x, W, stride=2, pad=1).shape
        (1, 3, 3, 3, 3)
        >>> F.deconvolution_nd(x, W, stride=2, pad=1, outsize=(4, 4, 4)).shape
        (1, 3, 4, 4, 4)
    """
    ndim = _spatial_ndim('deconvolution_nd', x)
    return _apply(DeconvolutionND(ndim, stride, pad, outsize, dilate, groups), x, W, b)


def deconvolution_1d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrTuple = 1,
                     pad: IntOrTuple = 0, outsize: Optional[Sequence[int]] = None,
                     dilate: IntOrTuple = 1, groups: int = 1) -> Variable:
    """1-D deconvolution: :func:`deconvolution_nd` with one spatial axis.

    Args:
        x: Input of shape ``(n, c_I, l)``.
        W: Filter of shape ``(c_I, c_O / groups, k)``.
        b: Optional bias of shape ``(c_O,)``.
        stride, pad, outsize, dilate, groups: As in :func:`deconvolution_nd`.

    Returns:
        Variable of shape ``(n, c_O, l_O)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[1.0, 2.0]]], np.float32)
        >>> F.deconvolution_1d(x, np.array([[[1.0, 1.0, 1.0]]], np.float32), stride=2).array
        array([[[1., 1., 3., 2., 2.]]], dtype=float32)
    """
    _check_spatial_ndim('deconvolution_1d', x, 1)
    return _apply(DeconvolutionND(1, stride, pad, outsize, dilate, groups,
                                  func_name='deconvolution_1d'), x, W, b)


def deconvolution_3d(x: Any, W: Any, b: Optional[Any] = None, stride: IntOrTuple = 1,
                     pad: IntOrTuple = 0, outsize: Optional[Sequence[int]] = None,
                     dilate: IntOrTuple = 1, groups: int = 1) -> Variable:
    """3-D deconvolution: :func:`deconvolution_nd` with three spatial axes.

    Args:
        x: Input of shape ``(n, c_I, d, h, w)``.
        W: Filter of shape ``(c_I, c_O / groups, k_D, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``.
        stride, pad, outsize, dilate, groups: As in :func:`deconvolution_nd`.

    Returns:
        Variable of shape ``(n, c_O, d_O, h_O, w_O)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.ones((1, 4, 2, 2, 2), np.float32)
        >>> F.deconvolution_3d(x, np.ones((4, 1, 2, 2, 2), np.float32), stride=2).shape
        (1, 1, 4, 4, 4)
    """
    _check_spatial_ndim('deconvolution_3d', x, 3)
    return _apply(DeconvolutionND(3, stride, pad, outsize, dilate, groups,
                                  func_name='deconvolution_3d'), x, W, b)
