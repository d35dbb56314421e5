"""Inverse of 2-D max pooling: every pixel goes back to the cell its maximum came from."""
from __future__ import annotations

from typing import Any, Optional, Union

from chainlet import backend
from chainlet import type_check
from chainlet.functions.pooling import _windows
from chainlet.variable import Variable

IntOrTuple = Union[int, tuple]


class Upsampling2D(_windows.WindowScatter):
    """Write each pixel at cell ``indexes`` of its window, zeros elsewhere; overlaps add up.

    Its gradient gathers those cells (:class:`~chainlet.functions.pooling._windows.
    WindowGather`), whose gradient is this scatter again.
    """

    def __init__(self, indexes: Any, geom: _windows.Geometry) -> None:
        super().__init__(indexes, geom, 'Upsampling2D')

    def _check_arrays(self, in_data):
        type_check.count('upsampling_2d', in_data, 1)
        type_check.argument('upsampling_2d', 'x', in_data[0], ndim=4, kind='f')


def upsampling_2d(x: Any, indexes: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                  pad: IntOrTuple = 0, outsize: Optional[IntOrTuple] = None,
                  cover_all: bool = True) -> Variable:
    """Upsample images by putting each pixel where :func:`max_pooling_2d` found its maximum.

    Pixel ``(i, j)`` of ``x`` is written to cell ``indexes[n, c, i, j] = ky * kw + kx`` of the
    ``kh x kw`` window starting at ``(i * sy - ph, j * sx - pw)`` of a zero image; values of
    overlapping windows add up and those landing in the padding are dropped. With the
    ``indexes`` of ``max_pooling_2d(..., return_indices=True)`` and the same parameters, this
    is the gradient of that pooling.

    Args:
        x: Variable or float array of shape ``(N, C, H, W)``.
        indexes: Integer array of the shape of ``x`` with values in ``[0, kh * kw)``.
        ksize: Window size, an int or a pair.
        stride: Step between windows; ``None`` means ``ksize``.
        pad: Padding cropped from both sides of the output.
        outsize: Output ``(out_h, out_w)``; default and constraint as in
            :func:`~chainlet.functions.unpooling_2d`.
        cover_all: Pooling convention used to relate the sizes (as in ``max_pooling_2d``).

    Returns:
        Variable of shape ``(N, C, out_h, out_w)``; only ``x`` receives a gradient.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[[1.0, 5.0, 2.0, 0.0]] * 2]], np.float32)
        >>> y, idx = F.max_pooling_2d(x, 2, return_indices=True)
        >>> F.upsampling_2d(y, idx, 2, outsize=(2, 4)).array
        array([[[[0., 5., 2., 0.],
                 [0., 0., 0., 0.]]]], dtype=float32)
    """
    func = 'upsampling_2d'
    geom = _windows.unpooling_geometry(func, x, ksize, stride, pad, outsize, cover_all)
    if isinstance(indexes, Variable):
        indexes = indexes.array
    if not backend.is_array(indexes):
        raise type_check.fail(func, 'indexes', 'an integer ndarray', type(indexes).__name__)
    type_check.argument(func, 'indexes', indexes, kind='iu', shape=tuple(x.shape))
    if indexes.size and not (0 <= int(indexes.min()) and int(indexes.max()) < geom.size):
        raise ValueError(f'{func}: argument indexes: expected values in [0, {geom.size}) '
                         f'(the cells of a {geom.ksize} window), got values in '
                         f'[{int(indexes.min())}, {int(indexes.max())}]')
    return Upsampling2D(indexes, geom).apply((x,))[0]


__all__ = ['Upsampling2D', 'upsampling_2d']
