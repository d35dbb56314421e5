"""Average pooling of images (Chainer's ``average_pooling_2d`` module): the 2-D case of
:mod:`~chainlet.functions.pooling.average_pooling_nd`."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.functions.pooling import _windows
from chainlet.functions.pooling.average_pooling_nd import (
    AveragePoolingND, IntOrTuple, _average_pooling)
from chainlet.variable import Variable


class AveragePooling2D(_windows.Pooling2DAttributes, AveragePoolingND):
    """Chainer's node class of :func:`average_pooling_2d`: ``AveragePoolingND`` with two axes.

    ``cover_all`` is accepted for Chainer's signature and must be ``False``.
    """

    def __init__(self, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                 pad: IntOrTuple = 0, cover_all: bool = False) -> None:
        super().__init__(2, ksize, stride, pad, cover_all, 0, func='average_pooling_2d')


def average_pooling_2d(x: Any, ksize: IntOrTuple, stride: Optional[IntOrTuple] = None,
                       pad: IntOrTuple = 0, pad_value: Optional[float] = 0) -> Variable:
    """Spatial average pooling of images ``x`` of shape ``(N, C, H, W)``.

    ``y[n, c, i, j]`` is the mean of ``x[n, c]`` over the ``kh x kw`` window starting at
    ``(i * sy - ph, j * sx - pw)``; output height ``(H + 2ph - kh) // sy + 1``, likewise for
    the width. See :func:`average_pooling_nd` for the arguments (Chainer's
    ``average_pooling_2d`` has no ``pad_value``; the default ``0`` behaves like it).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.average_pooling_2d(x, 2).array
        array([[[[ 2.5,  4.5],
                 [10.5, 12.5]]]], dtype=float32)
    """
    return _average_pooling('average_pooling_2d', 2, x, ksize, stride, pad, pad_value)


__all__ = ['AveragePooling2D', 'average_pooling_2d']
