"""``spatial_transformer_sampler``: bilinear sampling of an image at arbitrary points.

The function is a composition of chainlet functions (``pad``, ``clip``, ``get_item``, products
and sums), so its gradients with respect to the image and to the sampling grid, and their
derivatives, come from those functions. Only the integer corner indices are computed on raw
arrays: they are piecewise constant in the grid, so they carry no gradient.

Coordinates are scaled from ``[-1, 1]`` to pixel positions, the image is padded by one zero
pixel on each side and points are clipped to the padded image, so a point outside the image
blends towards zero and a point far outside reads zero with a zero gradient.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable


def _corner_weights(u: Variable, size: int) -> tuple:
    """Pixel coordinate ``u`` (in the padded image) -> ``(i0, w0, w1)``.

    ``i0`` is the index of the left (upper) neighbour and ``i0 + 1`` that of the right (lower)
    one; ``w0`` and ``w1`` are their bilinear weights, Variables that depend on ``u``.
    """
    from chainlet.functions.math.clip import clip
    uc = clip(u, 0.0, float(size + 1))
    i0 = backend.get_array_module(uc.array).floor(uc.array).astype(numpy.int32)
    i0 = i0.clip(0, size)
    return i0, (i0 + 1).astype(uc.dtype) - uc, uc - i0.astype(uc.dtype)


def spatial_transformer_sampler(x: Any, grid: Any) -> Variable:
    """Sample ``x`` at the points of ``grid`` with bilinear interpolation (zero padding).

    ``grid[n, :, i, j] = (u, v)`` is the point sampled for output pixel ``(i, j)``: ``u`` runs
    along the width and ``v`` along the height, and ``(-1, -1)`` / ``(1, 1)`` are the centres
    of the upper-left / lower-right pixels. Points outside the image interpolate with zeros.
    See `Spatial Transformer Networks <https://arxiv.org/abs/1506.02025>`_.

    Args:
        x: Float image of shape ``(n, c_I, h, w)``.
        grid: Float coordinates of shape ``(n, 2, h_O, w_O)``.

    Returns:
        Variable of shape ``(n, c_I, h_O, w_O)`` and the dtype of ``x``.

    Raises:
        TypeError: Non-float inputs, wrong ranks, ``grid.shape[1] != 2`` or batch sizes that
            differ.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
        >>> grid = np.array([[[[-1.0, 0.0]], [[-1.0, 0.0]]]], np.float32)  # (-1, -1), (0, 0)
        >>> F.spatial_transformer_sampler(x, grid).array
        array([[[[0. , 1.5]]]], dtype=float32)
    """
    from chainlet.functions.array.cast import cast
    from chainlet.functions.array.expand_dims import expand_dims
    from chainlet.functions.array.get_item import get_item
    from chainlet.functions.array.pad import pad
    from chainlet.functions.array.reshape import reshape
    from chainlet.functions.array.transpose import transpose
    func = 'spatial_transformer_sampler'
    xd = check_array(func, 'x', x)
    gd = check_array(func, 'grid', grid)
    type_check.argument(func, 'x', xd, kind='f', ndim=4)
    type_check.argument(func, 'grid', gd, kind='f', ndim=4)
    if gd.shape[1] != 2 or gd.shape[0] != xd.shape[0]:
        raise type_check.fail(func, 'grid', f'shape ({xd.shape[0]}, 2, *, *) (x has shape '
                              f'{xd.shape})', f'shape {gd.shape}')
    n, c, h, w = xd.shape
    # Pixel positions in the padded image: -1 -> 1 (first pixel), 1 -> size (last pixel).
    u = (grid[:, 0] + 1) * ((w - 1) / 2) + 1
    v = (grid[:, 1] + 1) * ((h - 1) / 2) + 1
    u0, wu0, wu1 = _corner_weights(u, w)
    v0, wv0, wv1 = _corner_weights(v, h)
    # Rows of the (n * (h + 2) * (w + 2), c) table of padded pixels, one per corner.
    x_pad = pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    table = reshape(transpose(x_pad, (0, 2, 3, 1)), (n * (h + 2) * (w + 2), c))
    xp = backend.get_array_module(xd)
    base = xp.arange(n, dtype=numpy.int32).reshape(n, 1, 1) * (h + 2)
    y = None
    for rows, wv in ((v0, wv0), (v0 + 1, wv1)):
        for cols, wu in ((u0, wu0), (u0 + 1, wu1)):
            weight = wv * wu
            if weight.dtype != xd.dtype:
                weight = cast(weight, xd.dtype)
            term = expand_dims(weight, 3) * get_item(table, ((base + rows) * (w + 2) + cols,))
            y = term if y is None else y + term
    return transpose(y, (0, 3, 1, 2))
