"""Spatial pyramid pooling: max pooling at several grid sizes, flattened into one vector."""
from __future__ import annotations

import warnings
from typing import Any, Optional

from chainlet.functions.array.concat import concat
from chainlet.functions.pooling import _windows
from chainlet.functions.pooling.max_pooling_2d import MaxPooling2D
from chainlet.functions.pooling.max_pooling_nd import MaxPoolingND
from chainlet.variable import Variable


def _level(size: int, bins: int) -> tuple:
    """Window and padding that cut ``size`` cells into ``bins`` windows, centred."""
    k = -(-size // bins)
    return k, (k * bins - size) // 2


def spatial_pyramid_pooling_2d(x: Any, pyramid_height: int, pooling: Optional[str] = None,
                               pooling_class: Optional[Any] = None) -> Variable:
    """Fixed-length features of images of any size (SPP-net).

    Level ``i`` (``0 <= i < pyramid_height``) max-pools ``x`` with window ``ceil(H / 2^i) x
    ceil(W / 2^i)``, stride equal to the window and padding ``(2^i k - H) // 2`` (likewise
    for the width), with ``cover_all``; that is about a ``2^i x 2^i`` grid. Each level is
    flattened to ``(N, C * bins, 1, 1)`` and the levels are concatenated along axis 1. (For an
    image smaller than the finest grid some windows hold only padding and give ``-inf``, as
    in Chainer.)

    Args:
        x: Float Variable or array of shape ``(N, C, H, W)``.
        pyramid_height: Number of levels, >= 1.
        pooling: ``'max'``, the only pooling offered (as in Chainer 7).
        pooling_class: Chainer 6's deprecated form of ``pooling`` (keyword, or a class given
            as the third argument): :class:`MaxPooling2D` means ``'max'``. Exactly one of
            ``pooling`` and ``pooling_class`` must be given.

    Returns:
        Variable of shape ``(N, C * sum_i 4^i, 1, 1)`` for images that split evenly.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
        >>> F.spatial_pyramid_pooling_2d(x, 2, pooling='max').array.ravel()
        array([15.,  5.,  7., 13., 15.], dtype=float32)
    """
    func = 'spatial_pyramid_pooling_2d'
    if isinstance(pooling, type) and pooling_class is None:  # Chainer 6's positional class
        pooling, pooling_class = None, pooling
    if (pooling_class is None) == (pooling is None):
        raise ValueError(f'{func}: expected exactly one of the arguments pooling and '
                         f'pooling_class, got pooling={pooling!r}, '
                         f'pooling_class={pooling_class!r}')
    is_max = pooling == 'max' or (isinstance(pooling_class, type) and
                                  issubclass(pooling_class, MaxPoolingND))
    if not is_max:
        raise ValueError(f"{func}: argument pooling: expected 'max' (the only pooling "
                         f'offered), got {pooling if pooling is not None else pooling_class!r}')
    if isinstance(pyramid_height, bool) or not isinstance(pyramid_height, int) or \
            pyramid_height < 1:
        raise ValueError(f'{func}: argument pyramid_height: expected an int >= 1, '
                         f'got {pyramid_height!r}')
    if pooling_class is not None:  # warned once the call is known to be valid
        warnings.warn('spatial_pyramid_pooling_2d: pooling_class is deprecated, use '
                      "pooling='max'", DeprecationWarning, stacklevel=2)
    _windows.check_rank(func, x, 2)
    n, c, h, w = x.shape
    ys = []
    for level in range(pyramid_height):
        bins = 2 ** level
        (kh, ph), (kw, pw) = _level(h, bins), _level(w, bins)
        node = MaxPoolingND(2, (kh, kw), None, (ph, pw), True, func=func, wide_pad=True)
        y = node.apply((x,))[0]
        ys.append(y.reshape(n, -1, 1, 1))
    return concat(ys, axis=1)


__all__ = ['MaxPooling2D', 'spatial_pyramid_pooling_2d']
