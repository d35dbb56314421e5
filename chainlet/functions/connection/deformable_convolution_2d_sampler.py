"""``deformable_convolution_2d_sampler``: a convolution whose taps move by learned offsets.

The function is a composition, as in Chainer: the offsets are turned into sampling points
(the regular convolution grid plus the offsets), the padded image is sampled there with
:func:`~chainlet.functions.spatial_transformer_sampler` (bilinear, zero outside), and the
samples are multiplied with the filters in one matrix product. Gradients with respect to the
image, the offsets, the filters and the bias, and their derivatives, come from those functions.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union


from chainlet import backend
from chainlet import type_check
from chainlet.functions.array._util import check_array
from chainlet.functions.connection import _conv_utils
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]


def _sampling_grid(offset: Any, ksize: tuple, stride: tuple, padded: tuple) -> Variable:
    """Sampling points ``(n, 2, k_H k_W, h_O w_O)`` in the ``[-1, 1]`` units of the sampler."""
    from chainlet.functions.array.concat import concat
    from chainlet.functions.array.reshape import reshape
    kh, kw = ksize
    n, _, oh, ow = offset.shape
    xp = backend.get_array_module(offset.array)
    dtype = offset.dtype
    # Pixel position of tap (u, v) of window (i, j) in the padded image, before the offset.
    ys = (xp.arange(oh) * stride[0])[:, None] + xp.repeat(xp.arange(kh), kw)[:, None, None]
    xs = (xp.arange(ow) * stride[1])[None, :] + xp.tile(xp.arange(kw), kh)[:, None, None]
    px = offset[:, :kh * kw] + xs.astype(dtype)
    py = offset[:, kh * kw:] + ys.astype(dtype)
    # The sampler maps -1 and 1 to the first and the last pixel.
    u = px * (2.0 / (padded[1] - 1)) - 1
    v = py * (2.0 / (padded[0] - 1)) - 1
    return reshape(concat([u, v], axis=1), (n, 2, kh * kw, oh * ow))


def deformable_convolution_2d_sampler(x: Any, offset: Any, W: Any, b: Optional[Any] = None,
                                      stride: IntOrPair = 1, pad: IntOrPair = 0) -> Variable:
    """Deformable convolution with given offsets (Dai et al., 2017).

    Like :func:`~chainlet.functions.convolution_2d`, but tap ``(u, v)`` of the window at output
    position ``(i, j)`` reads the padded input at
    ``(s_Y i + u + offset[n, k_H k_W + k, i, j], s_X j + v + offset[n, k, i, j])`` with
    ``k = u k_W + v``, by bilinear interpolation (zero outside the padded input). With zero
    offsets it is an ordinary convolution. See `Deformable Convolutional Networks
    <https://arxiv.org/abs/1703.06211>`_.

    Args:
        x: Float input of shape ``(n, c_I, h, w)``.
        offset: Float offsets of shape ``(n, 2 k_H k_W, h_O, w_O)``: the horizontal offsets of
            the taps first, then the vertical ones.
        W: Filter of shape ``(c_O, c_I, k_H, k_W)``.
        b: Optional bias of shape ``(c_O,)``.
        stride: Int or pair of positive ints ``(s_Y, s_X)``.
        pad: Int or pair of non-negative ints ``(p_H, p_W)``.

    Returns:
        Variable of shape ``(n, c_O, h_O, w_O)`` with ``h_O = (h + 2 p_H - k_H) // s_Y + 1``
        and ``w_O = (w + 2 p_W - k_W) // s_X + 1``.

    Raises:
        TypeError: Non-float inputs, wrong ranks, or shapes of ``W``/``offset``/``b`` that do
            not match ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.random.uniform(0, 1, (2, 3, 4, 7)).astype(np.float32)
        >>> offset = np.zeros((2, 2 * 3 * 3, 2, 5), np.float32)
        >>> W = np.random.uniform(0, 1, (4, 3, 3, 3)).astype(np.float32)
        >>> y = F.deformable_convolution_2d_sampler(x, offset, W)
        >>> y.shape, np.allclose(y.array, F.convolution_2d(x, W).array)
        ((2, 4, 2, 5), True)
    """
    from chainlet.functions.array.pad import pad as pad_
    from chainlet.functions.array.reshape import reshape
    from chainlet.functions.array.spatial_transformer_sampler import (
        spatial_transformer_sampler)
    from chainlet.functions.array.transpose import transpose
    from chainlet.functions.math.matmul import matmul
    from chainlet.variable import as_variable
    func = 'deformable_convolution_2d_sampler'
    xd, od, Wd = (check_array(func, name, a) for name, a in
                  (('x', x), ('offset', offset), ('W', W)))
    type_check.argument(func, 'x', xd, kind='f', ndim=4)
    type_check.argument(func, 'W', Wd, kind='f', ndim=4)
    n, c, h, w = xd.shape
    out_c, _, kh, kw = Wd.shape
    type_check.argument(func, 'W', Wd, shape=(None, c, kh, kw))
    stride = _conv_utils.as_tuple(func, 'stride', stride, 2, 1)
    pad = _conv_utils.as_tuple(func, 'pad', pad, 2, 0)
    outsize = _conv_utils.conv_outsizes(func, (h, w), (kh, kw), stride, pad, False, (1, 1))
    type_check.argument(func, 'offset', od, kind='f', shape=(n, 2 * kh * kw) + outsize)
    if b is not None:
        type_check.argument(func, 'b', check_array(func, 'b', b), kind='f', shape=(out_c,))
    grid = _sampling_grid(as_variable(offset), (kh, kw), stride, (h + 2 * pad[0], w + 2 * pad[1]))
    x_pad = pad_(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    samples = spatial_transformer_sampler(x_pad, grid)  # (n, c, kh * kw, oh * ow)
    P = outsize[0] * outsize[1]
    samples = reshape(transpose(samples, (0, 3, 1, 2)), (n * P, c * kh * kw))
    y = matmul(samples, reshape(W, (out_c, c * kh * kw)), transb=True)
    y = transpose(reshape(y, (n,) + outsize + (out_c,)), (0, 3, 1, 2))
    if b is not None:
        y = y + reshape(b, (1, out_c, 1, 1))
    return y
