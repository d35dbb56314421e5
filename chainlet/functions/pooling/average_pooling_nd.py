"""Average pooling over 1, 2, 3 or N spatial axes (NCHW layout)."""
from __future__ import annotations

from typing import Any, Optional, Union

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.pooling import _windows
from chainlet.variable import Variable

IntOrTuple = Union[int, tuple]


class AveragePoolingND(FunctionNode):
    """``y`` = mean of every window (``cover_all`` is always off, as in Chainer).

    With ``pad_value=0`` the padded cells count as zeros (the divisor is ``prod(ksize)``); with
    ``pad_value=None`` they are left out (the divisor is the number of real cells, a small
    constant array). The gradient spreads ``gy / divisor`` over each window.
    """

    def __init__(self, ndim: int, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, cover_all: bool = False, pad_value: Optional[float] = 0,
                 *, func: str = 'average_pooling_nd') -> None:
        # Chainer's positional order; cover_all exists for it and must stay False.
        if cover_all:
            raise ValueError(f'{func}: argument cover_all: expected False (average pooling '
                             f'has no cover_all mode), got {cover_all!r}')
        self.ndim = ndim
        self.cover_all = False
        self.ksize, self.stride, self.pad = _windows.pooling_params(func, ndim, ksize, stride,
                                                                    pad)
        if pad_value is not None and (isinstance(pad_value, bool) or pad_value != 0):
            raise ValueError(f'{func}: argument pad_value: expected 0 or None, '
                             f'got {pad_value!r}')
        self.pad_value = pad_value
        self._func = func

    def _check_arrays(self, in_data):
        type_check.count(self._func, in_data, 1)
        type_check.argument(self._func, 'x', in_data[0], ndim=self.ndim + 2, kind='f')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        dims = x.shape[2:]
        _windows.check_fits(self._func, dims, self.ksize, self.pad)
        geom = _windows.Geometry.for_pooling(self.ksize, self.stride, self.pad, dims, False)
        self._geom = geom
        y = _windows.sum_windows(x, geom)
        if self.pad_value is None and geom.padded:
            ones = xp.ones((1, 1) + dims, y.dtype)
            # Every window holds at least one real cell because pad < ksize.
            self._coeff = (1 / _windows.sum_windows(ones, geom)).astype(x.dtype)
            y *= self._coeff
        else:
            self._coeff = 1.0 / geom.size
            y *= y.dtype.type(self._coeff)
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        label = 'AveragePoolingNDGrad'
        return _windows.WindowSpread(self._geom, label).apply((gy * self._coeff,))


def _average_pooling(func: str, ndim: Optional[int], x: Any, ksize: IntOrTuple,
                     stride: Optional[IntOrTuple], pad: IntOrTuple,
                     pad_value: Optional[float]) -> Variable:
    if ndim is None:
        if not hasattr(x, 'shape'):
            raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
        x_ndim = len(x.shape)
        if x_ndim < 3:
            raise type_check.fail(func, 'x', 'ndim >= 3 (batch, channel, spatial axes)',
                                  f'shape {tuple(x.shape)}')
        ndim = x_ndim - 2
    else:
        _windows.check_rank(func, x, ndim)
    return AveragePoolingND(ndim, ksize, stride, pad, False, pad_value, func=func).apply(
        (x,))[0]


def average_pooling_nd(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                       pad: IntOrTuple = 0, pad_value: Optional[float] = 0) -> Variable:
    """Mean over windows of ``ksize`` cells sliding over every spatial axis of ``x``.

    Output size per axis: ``(d + 2p - k) // s + 1`` (no ``cover_all`` mode).

    Args:
        x: Variable or float array of shape ``(N, C, d_1, ..., d_n)``, ``n >= 1``.
        ksize: Window size: an int (same on every axis) or a tuple of ``n`` ints.
        stride: Step between windows; ``None`` means ``ksize``.
        pad: Padding on both sides of every spatial axis; each must be smaller than ``ksize``.
        pad_value: ``0``: padded cells are zeros and count in the mean (biased towards zero at
            the borders); ``None``: they are left out of the mean.

    Returns:
        Variable of shape ``(N, C, o_1, ..., o_n)`` and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[1.0, 2.0, 3.0]]], np.float32)
        >>> F.average_pooling_nd(x, 2, stride=2, pad=1).array
        array([[[0.5, 2.5]]], dtype=float32)
        >>> F.average_pooling_nd(x, 2, stride=2, pad=1, pad_value=None).array
        array([[[1. , 2.5]]], dtype=float32)
    """
    return _average_pooling('average_pooling_nd', None, x, ksize, stride, pad, pad_value)


def average_pooling_1d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                       pad: IntOrTuple = 0, pad_value: Optional[float] = 0) -> Variable:
    """Average pooling over the last axis of ``x`` of shape ``(N, C, L)``.

    See :func:`average_pooling_nd` for the arguments.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.average_pooling_1d(np.array([[[1.0, 3.0, 5.0, 7.0]]]), 2).array
        array([[[2., 6.]]])
    """
    return _average_pooling('average_pooling_1d', 1, x, ksize, stride, pad, pad_value)


def average_pooling_3d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                       pad: IntOrTuple = 0, pad_value: Optional[float] = 0) -> Variable:
    """Average pooling of volumes ``x`` of shape ``(N, C, D, H, W)``.

    See :func:`average_pooling_nd` for the arguments.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
        >>> F.average_pooling_3d(x, 2).array
        array([[[[[3.5]]]]], dtype=float32)
    """
    return _average_pooling('average_pooling_3d', 3, x, ksize, stride, pad, pad_value)


__all__ = ['AveragePoolingND', 'average_pooling_1d', 'average_pooling_3d',
           'average_pooling_nd']
