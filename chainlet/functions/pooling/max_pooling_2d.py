"""Max pooling of images (Chainer's ``max_pooling_2d`` module): the 2-D case of
:mod:`~chainlet.functions.pooling.max_pooling_nd`."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.pooling import _windows
from chainlet.functions.pooling.max_pooling_nd import (
    IntOrTuple, MaxPoolingND, Pooled, _max_pooling)


class MaxPooling2D(_windows.Pooling2DAttributes, MaxPoolingND):
    """Chainer's node class of :func:`max_pooling_2d`: ``MaxPoolingND`` with two axes."""

    def __init__(self, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, cover_all: bool = True,
                 return_indices: bool = False) -> None:
        super().__init__(2, ksize, stride, pad, cover_all, return_indices, func='max_pooling_2d')


def max_pooling_2d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                   pad: IntOrTuple = 0, cover_all: bool = True,
                   return_indices: bool = False) -> Pooled:
    """Spatial max pooling of images ``x`` of shape ``(N, C, H, W)``.

    ``y[n, c, i, j]`` is the maximum of ``x[n, c]`` over the ``kh x kw`` window starting at
    ``(i * sy - ph, j * sx - pw)``. Output height ``(H + 2ph - kh) // sy + 1`` (plus the
    partial windows ``cover_all`` adds), likewise for the width. A window that tiles the image
    exactly (e.g. 2x2, stride 2, even sizes) needs no padded copy. See
    :func:`max_pooling_nd` for the arguments.

    Returns:
        Variable of shape ``(N, C, out_h, out_w)``; with ``return_indices``, also the
        in-window index ``ky * kw + kx`` of each maximum.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> y, idx = F.max_pooling_2d(x, 2, return_indices=True)
        >>> y.array
        array([[[[ 5.,  7.],
                 [13., 15.]]]], dtype=float32)
        >>> idx
        array([[[[3, 3],
                 [3, 3]]]])
    """
    return _max_pooling('max_pooling_2d', 2, x, ksize, stride, pad, cover_all, return_indices)


__all__ = ['MaxPooling2D', 'max_pooling_2d']
