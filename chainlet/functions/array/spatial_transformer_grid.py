"""``spatial_transformer_grid``: the sampling points of an affine warp.

The grid is one batched matrix product ``theta @ coords`` with the fixed ``(3, h_O w_O)``
matrix of homogeneous target coordinates, written with ``matmul`` so that it is differentiable
to any order.
"""
from __future__ import annotations

from typing import Any, Sequence


from chainlet import backend
from chainlet import type_check
from chainlet.functions.array._util import check_array, check_int
from chainlet.variable import Variable


def spatial_transformer_grid(theta: Any, output_shape: Sequence[int]) -> Variable:
    """Source points of an affine warp, for :func:`spatial_transformer_sampler`.

    For every target pixel ``(x_t, y_t)`` of an ``h_O x w_O`` grid spanning ``[-1, 1]`` on both
    axes, the source point is ``(x_s, y_s) = theta @ (x_t, y_t, 1)``. See `Spatial Transformer
    Networks <https://arxiv.org/abs/1506.02025>`_.

    Args:
        theta: Float array of shape ``(n, 2, 3)``: one affine matrix per batch item.
        output_shape: Pair of ints ``(h_O, w_O)``.

    Returns:
        Variable of shape ``(n, 2, h_O, w_O)`` and the dtype of ``theta``; channel 0 holds
        ``x_s`` (along the width), channel 1 ``y_s`` (along the height).

    Raises:
        TypeError: ``theta`` not a float array of shape ``(n, 2, 3)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> identity = np.array([[[1, 0, 0], [0, 1, 0]]], np.float32)
        >>> F.spatial_transformer_grid(identity, (2, 3)).array[0]
        array([[[-1.,  0.,  1.],
                [-1.,  0.,  1.]],
        <BLANKLINE>
               [[-1., -1., -1.],
                [ 1.,  1.,  1.]]], dtype=float32)
    """
    from chainlet.functions.array.reshape import reshape
    from chainlet.functions.math.matmul import matmul
    data = check_array('spatial_transformer_grid', 'theta', theta)
    type_check.argument('spatial_transformer_grid', 'theta', data, kind='f',
                        shape=(None, 2, 3))
    h, w = (check_int('spatial_transformer_grid', 'output_shape', s) for s in output_shape)
    xp = backend.get_array_module(data)
    ys, xs = xp.meshgrid(xp.linspace(-1, 1, h), xp.linspace(-1, 1, w), indexing='ij')
    coords = xp.stack([xs.ravel(), ys.ravel(), xp.ones(h * w)]).astype(data.dtype)
    return reshape(matmul(theta, coords), (data.shape[0], 2, h, w))
