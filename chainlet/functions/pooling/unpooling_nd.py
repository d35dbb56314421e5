"""Inverse of N-D pooling by repetition: every pixel fills its whole window of the output."""
from __future__ import annotations

from typing import Any, Optional, Union

from chainlet import type_check
from chainlet.functions.pooling import _windows
from chainlet.variable import Variable

IntOrTuple = Union[int, tuple]


class UnpoolingND(_windows.WindowSpread):
    """Copy each pixel to all cells of its ``ksize`` window; overlapping windows add up.

    Its gradient sums every window (:class:`~chainlet.functions.pooling._windows.WindowSum`),
    whose gradient is this spread again, so it can be differentiated any number of times.
    """

    def __init__(self, geom: _windows.Geometry, func: str = 'unpooling_nd') -> None:
        super().__init__(geom, 'UnpoolingND')
        self._func = func

    def _check_arrays(self, in_data):
        ndim = len(self.geom.ksize)
        type_check.count(self._func, in_data, 1)
        type_check.argument(self._func, 'x', in_data[0], ndim=ndim + 2, kind='f')


def _unpooling(func: str, ndim: Optional[int], x: Any, ksize: IntOrTuple,
               stride: Optional[IntOrTuple], pad: IntOrTuple, outsize: Optional[IntOrTuple],
               cover_all: bool) -> Variable:
    if ndim is None:
        if not hasattr(x, 'shape'):
            raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
        if len(x.shape) < 3:
            raise type_check.fail(func, 'x', 'ndim >= 3 (batch, channel, spatial axes)',
                                  f'shape {tuple(x.shape)}')
        ndim = len(x.shape) - 2
    else:
        _windows.check_rank(func, x, ndim)
    geom = _windows.unpooling_geometry(func, x, ksize, stride, pad, outsize, cover_all, ndim)
    return UnpoolingND(geom, func).apply((x,))[0]


def unpooling_nd(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, outsize: Optional[IntOrTuple] = None,
                 cover_all: bool = True) -> Variable:
    """Upsample by copying each input cell over its pooling window (inverse of pooling).

    Cell ``i`` of ``x`` (a multi-index over the spatial axes) is written to the window of the
    output starting at ``i * stride - pad`` with ``ksize`` cells per axis; where windows
    overlap (``stride < ksize``) the copies add up, and what lands in the padding is dropped.
    This is the adjoint of sum pooling, and :func:`unpooling_2d` for two spatial axes.

    Args:
        x: Variable or float array of shape ``(N, C, d_1, ..., d_n)``, ``n >= 1``.
        ksize: Window size, an int (same on every axis) or a tuple of ``n`` ints.
        stride: Step between windows; ``None`` means ``ksize``.
        pad: Padding cropped from both sides of every spatial axis of the output.
        outsize: Output spatial shape; by default the largest one whose pooling with the same
            parameters gives ``(d_1, ..., d_n)``: ``s * (d - 1) + k - 2 * p``, minus ``s - 1``
            when ``cover_all``. A given size must pool back to ``x``'s spatial shape
            (:class:`~chainlet.type_check.InvalidType` otherwise).
        cover_all: Pooling convention relating the sizes (as in
            :func:`~chainlet.functions.max_pooling_nd`).

    Returns:
        Variable of shape ``(N, C, o_1, ..., o_n)`` and dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[1.0, 2.0, 3.0]]], np.float32)
        >>> F.unpooling_nd(x, 2, cover_all=False).array
        array([[[1., 1., 2., 2., 3., 3.]]], dtype=float32)
        >>> F.unpooling_nd(x, 3, stride=2, pad=1, cover_all=False).array
        array([[[1., 3., 2., 5., 3.]]], dtype=float32)
    """
    return _unpooling('unpooling_nd', None, x, ksize, stride, pad, outsize, cover_all)


def unpooling_1d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, outsize: Optional[IntOrTuple] = None,
                 cover_all: bool = True) -> Variable:
    """Unpooling of sequences ``x`` of shape ``(N, C, L)``; see :func:`unpooling_nd`.

    Raises :class:`~chainlet.type_check.InvalidValue` (an ``InvalidType`` and a
    ``ValueError``) for an input of another rank.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.unpooling_1d(np.array([[[1.0, 2.0]]]), 2, cover_all=False).array
        array([[[1., 1., 2., 2.]]])
    """
    return _unpooling('unpooling_1d', 1, x, ksize, stride, pad, outsize, cover_all)


def unpooling_3d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, outsize: Optional[IntOrTuple] = None,
                 cover_all: bool = True) -> Variable:
    """Unpooling of volumes ``x`` of shape ``(N, C, D, H, W)``; see :func:`unpooling_nd`.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.unpooling_3d(np.ones((1, 1, 1, 1, 1)), 2, cover_all=False).shape
        (1, 1, 2, 2, 2)
    """
    return _unpooling('unpooling_3d', 3, x, ksize, stride, pad, outsize, cover_all)


__all__ = ['UnpoolingND', 'unpooling_1d', 'unpooling_3d', 'unpooling_nd']
