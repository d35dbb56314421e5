"""Max pooling over 1, 2, 3 or N spatial axes (NCHW layout: batch, channel, then space)."""
from __future__ import annotations

from typing import Any, Optional, Union

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.pooling import _windows
from chainlet.variable import Variable

IntOrTuple = Union[int, tuple]
Pooled = Union[Variable, tuple]


class MaxPoolingND(FunctionNode):
    """``y`` = maximum of every window; the in-window argmax is kept for backward.

    The argmax array (small integers, one per output element) is kept on the node instead of
    the input: the gradient scatters ``gy`` to those cells, and the gradient of that scatter
    gathers from them again, so the function can be differentiated any number of times.
    """

    def __init__(self, ndim: int, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, cover_all: bool = True, return_indices: bool = False,
                 *, func: str = 'max_pooling_nd', wide_pad: bool = False) -> None:
        # return_indices (Chainer's positional order) only matters to the wrappers: the node
        # always keeps ``indexes``.
        self.ndim = ndim
        if wide_pad:  # spatial_pyramid_pooling_2d: windows made only of padding give -inf
            self.ksize = _windows.as_tuple(func, 'ksize', ksize, ndim, 1)
            self.stride = self.ksize if stride is None else _windows.as_tuple(
                func, 'stride', stride, ndim, 1)
            self.pad = _windows.as_tuple(func, 'pad', pad, ndim, 0)
        else:
            self.ksize, self.stride, self.pad = _windows.pooling_params(func, ndim, ksize,
                                                                        stride, pad)
        self._wide_pad = wide_pad
        self.cover_all = cover_all
        self._func = func
        self.indexes: Any = None

    def _check_arrays(self, in_data):
        type_check.count(self._func, in_data, 1)
        type_check.argument(self._func, 'x', in_data[0], ndim=self.ndim + 2, kind='f')

    def forward(self, inputs):
        x, = inputs
        dims = x.shape[2:]
        if not self._wide_pad:
            _windows.check_fits(self._func, dims, self.ksize, self.pad)
        self._geom = _windows.Geometry.for_pooling(self.ksize, self.stride, self.pad, dims,
                                                   self.cover_all)
        y, self.indexes = _windows.max_windows(x, self._geom)
        return y,

    def backward(self, indexes, grad_outputs):
        return _windows.WindowScatter(self.indexes, self._geom, 'MaxPoolingNDGrad').apply(
            grad_outputs)


def _max_pooling(func: str, ndim: Optional[int], x: Any, ksize: IntOrTuple,
                 stride: Optional[IntOrTuple], pad: IntOrTuple, cover_all: bool,
                 return_indices: bool) -> Pooled:
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
    node = MaxPoolingND(ndim, ksize, stride, pad, cover_all, func=func)
    y = node.apply((x,))[0]
    if return_indices:
        xp = y.xp
        return y, node.indexes.astype(xp.intp)
    return y


def max_pooling_nd(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                   pad: IntOrTuple = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Pooled:
    """Maximum over windows of ``ksize`` cells sliding over every spatial axis of ``x``.

    Output size per axis: ``(d + 2p - k) // s + 1``, or with ``cover_all``
    ``(d + 2p - k + s - 1) // s + 1`` so that every input cell lies in some window (the
    extra cells are padding). Padding never wins the maximum (it is ``-inf``). The gradient
    flows to the first maximum of each window.

    Args:
        x: Variable or float array of shape ``(N, C, d_1, ..., d_n)``, ``n >= 1``.
        ksize: Window size: an int (same on every axis) or a tuple of ``n`` ints.
        stride: Step between windows; ``None`` means ``ksize``.
        pad: Padding on both sides of every spatial axis; each must be smaller than ``ksize``.
        cover_all: Add windows so that every input cell is pooled (Chainer's default).
        return_indices: Also return the in-window index of each maximum, an integer array of
            the output's shape holding the flat (C-order) index in the ``ksize`` window; this
            is what :func:`~chainlet.functions.upsampling_2d` takes.

    Returns:
        Variable of shape ``(N, C, o_1, ..., o_n)`` and dtype of ``x``; with
        ``return_indices``, the tuple ``(y, indexes)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 16)
        >>> F.max_pooling_nd(x, 4).array
        array([[[ 3.,  7., 11., 15.]]], dtype=float32)
    """
    return _max_pooling('max_pooling_nd', None, x, ksize, stride, pad, cover_all,
                        return_indices)


def max_pooling_1d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                   pad: IntOrTuple = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Pooled:
    """Max pooling over the last axis of ``x`` of shape ``(N, C, L)``.

    See :func:`max_pooling_nd` for the arguments.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[1.0, 5.0, 2.0, 0.0, 3.0]]], np.float32)
        >>> F.max_pooling_1d(x, 2).array
        array([[[5., 2., 3.]]], dtype=float32)
    """
    return _max_pooling('max_pooling_1d', 1, x, ksize, stride, pad, cover_all, return_indices)


def max_pooling_3d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                   pad: IntOrTuple = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Pooled:
    """Max pooling of volumes ``x`` of shape ``(N, C, D, H, W)``.

    See :func:`max_pooling_nd` for the arguments.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(8, dtype=np.float32).reshape(1, 1, 2, 2, 2)
        >>> F.max_pooling_3d(x, 2).array
        array([[[[[7.]]]]], dtype=float32)
    """
    return _max_pooling('max_pooling_3d', 3, x, ksize, stride, pad, cover_all, return_indices)


__all__ = ['MaxPoolingND', 'max_pooling_1d', 'max_pooling_3d', 'max_pooling_nd']


def __getattr__(name: str) -> Any:
    # Chainer's module path for max_pooling_2d; max_pooling_2d imports this module, so it is
    # fetched on first use.
    if name == 'max_pooling_2d':
        from chainlet.functions.pooling.max_pooling_2d import max_pooling_2d
        return max_pooling_2d
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
