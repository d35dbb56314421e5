"""Shared argument checks and array kernels of the convolution functions (N spatial dimensions).

Layout is channels-first: an image has shape ``(n, c, d_1, ..., d_N)``; a *column* array has
shape ``(n, c, k_1, ..., k_N, o_1, ..., o_N)`` where ``k`` is the kernel size and ``o`` the
number of window positions on each spatial axis.

The window arithmetic and ``im2col``/``col2im`` themselves live in :mod:`chainlet.utils.conv`
and :mod:`chainlet.utils.conv_nd` (their one home, Chainer's public API); the names below are
imported from there for the convolution modules. This module adds what only the functions need:
argument normalization with messages that name the function, and the three kernels
:func:`conv_forward`, :func:`deconv_forward` and :func:`conv_grad_w`, the array-level bodies of
``ConvolutionND``, ``DeconvolutionND`` and ``ConvolutionNDGradW``; each is one matrix product
per group on the column array.

Example:
    >>> get_conv_outsize(5, 3, 2, 1)
    3
    >>> get_deconv_outsize(3, 3, 2, 1)
    5
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.utils.conv import _per_axis as per_axis
from chainlet.utils.conv import get_conv_outsize, get_deconv_outsize  # noqa: F401
from chainlet.utils.conv_nd import col2im_nd_cpu as col2im  # noqa: F401
from chainlet.utils.conv_nd import im2col_nd_cpu as im2col
from chainlet.utils.conv_nd import im2col_nd_view as im2col_view


class Conv2DAttributes:
    """Chainer's names of a 2-D (de)convolution's settings, read by hooks and graph exporters
    (onnx_chainer): ``sy, sx`` (stride), ``ph, pw`` (pad), ``dy, dx`` (dilate)."""

    sy = property(lambda self: self.stride[0], doc='Vertical stride.')
    sx = property(lambda self: self.stride[1], doc='Horizontal stride.')
    ph = property(lambda self: self.pad[0], doc='Vertical padding.')
    pw = property(lambda self: self.pad[1], doc='Horizontal padding.')
    dy = property(lambda self: self.dilate[0], doc='Vertical dilation.')
    dx = property(lambda self: self.dilate[1], doc='Horizontal dilation.')


def as_tuple(func: str, name: str, value: Any, ndim: int, minimum: int) -> tuple:
    """Normalise an int or a sequence of ``ndim`` ints to a tuple and check its range.

    Raises:
        TypeError: ``value`` is not an int or a sequence of ints.
        ValueError: wrong length, or an entry below ``minimum``.
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        values = (int(value),) * ndim
    else:
        try:
            values = tuple(value)
        except TypeError:
            raise TypeError(f'{func}: argument {name}: expected an int or a sequence of '
                            f'{ndim} ints, got {type(value).__name__}') from None
        if not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                   for v in values):
            raise TypeError(f'{func}: argument {name}: expected an int or a sequence of '
                            f'{ndim} ints, got {value!r}')
        if len(values) != ndim:
            raise ValueError(f'{func}: argument {name}: expected an int or a sequence of '
                             f'{ndim} ints, got {value!r}')
        values = tuple(int(v) for v in values)
    if any(v < minimum for v in values):
        bound = 'positive' if minimum == 1 else f'>= {minimum}'
        raise ValueError(f'{func}: argument {name}: expected {bound} values, got {value!r}')
    return values


def check_groups(func: str, groups: Any) -> int:
    """Validate ``groups`` (a positive int)."""
    if not isinstance(groups, numbers.Integral) or isinstance(groups, bool):
        raise TypeError(f'{func}: argument groups: expected a positive int, '
                        f'got {type(groups).__name__}')
    if groups < 1:
        raise ValueError(f'{func}: argument groups: expected a positive int, got {groups}')
    return int(groups)


def conv_outsizes(func: str, shape: Sequence[int], ksize: Sequence[int],
                  stride: Sequence[int], pad: Sequence[int], cover_all: Any,
                  dilate: Sequence[int]) -> tuple:
    """Output spatial shape of a convolution; ``ValueError`` when a kernel does not fit.

    ``cover_all`` is a bool or one bool per axis.
    """
    outs = []
    cover = per_axis(cover_all, len(shape))
    for axis, (size, k, s, p, d, c) in enumerate(zip(shape, ksize, stride, pad, dilate, cover)):
        o = get_conv_outsize(size, k, s, p, c, d)
        if o <= 0:
            dk = k + (k - 1) * (d - 1)
            raise ValueError(
                f'{func}: the kernel does not fit in the padded input on spatial axis {axis}: '
                f'kernel extent {dk} (ksize {k}, dilate {d}), input size {size} '
                f'+ 2 * pad {p} = {size + 2 * p}')
        outs.append(o)
    return tuple(outs)


def conv_forward(x: Any, W: Any, stride: tuple, pad: tuple, dilate: tuple, groups: int,
                 outsize: tuple) -> Any:
    """Grouped N-d convolution of arrays (no bias): ``(n, c, *d)`` -> ``(n, out_c, *o)``."""
    xp = backend.get_array_module(x)
    n = x.shape[0]
    out_c = W.shape[0]
    ksize = W.shape[2:]
    col = im2col(x, ksize, stride, pad, 0, False, dilate, outsize)
    K = (x.shape[1] // groups) * math.prod(ksize)
    col = col.reshape(n, groups, K, math.prod(outsize))
    # (groups, out_c/groups, K) @ (n, groups, K, P) -> (n, groups, out_c/groups, P): one
    # contiguous product per batch item and group, output already channels-first.
    y = xp.matmul(W.reshape(groups, out_c // groups, K), col)
    y = y.reshape((n, out_c) + tuple(outsize))
    if y.dtype != x.dtype:
        y = y.astype(x.dtype)
    return y


def deconv_forward(x: Any, W: Any, stride: tuple, pad: tuple, dilate: tuple, groups: int,
                   outsize: tuple) -> Any:
    """Grouped N-d deconvolution of arrays (no bias): ``(n, in_c, *d)`` -> ``(n, out_c, *o)``.

    ``W`` has shape ``(in_c, out_c / groups, *k)``.
    """
    xp = backend.get_array_module(x)
    n, in_c = x.shape[:2]
    spatial = x.shape[2:]
    ocg = W.shape[1]
    ksize = W.shape[2:]
    w = W.reshape(groups, in_c // groups, ocg * math.prod(ksize))
    xr = x.reshape(n, groups, in_c // groups, math.prod(spatial))
    # (groups, K, in_c/groups) @ (n, groups, in_c/groups, P) -> (n, groups, K, P)
    col = xp.matmul(w.transpose(0, 2, 1), xr)
    if col.dtype != x.dtype:
        col = col.astype(x.dtype)
    col = col.reshape((n, groups * ocg) + tuple(ksize) + tuple(spatial))
    return col2im(col, stride, pad, outsize, dilate)


def conv_grad_w(x: Any, gy: Any, ksize: tuple, stride: tuple, pad: tuple, dilate: tuple,
                groups: int, dtype: Any) -> Any:
    """Gradient of a convolution with respect to its filter: shape ``(out_c, c/groups, *k)``.

    The window positions are those of ``gy`` (so ``cover_all`` is implied by its shape).
    """
    xp = backend.get_array_module(x)
    n, c = x.shape[:2]
    out_c = gy.shape[1]
    outsize = gy.shape[2:]
    P = math.prod(outsize)
    view = im2col_view(x, ksize, stride, pad, 0, False, dilate, outsize)
    K = (c // groups) * math.prod(ksize)
    ocg = out_c // groups
    gyr = gy.reshape(n, groups, ocg, P)
    if ocg <= P:
        # One product per image, summed over the batch: the (n, groups, ocg, K) partial sums
        # are no larger than the column array.
        col = xp.ascontiguousarray(view).reshape(n, groups, K, P)
        gW = xp.matmul(gyr, col.transpose(0, 1, 3, 2)).sum(axis=0)
    else:
        # Few positions, many channels: lay the columns out as (c, *k, n, *o) in the one copy,
        # so that a single product per group reduces over batch and positions together.
        nd = len(ksize)
        axes = (1,) + tuple(range(2, 2 + nd)) + (0,) + tuple(range(2 + nd, 2 + 2 * nd))
        col = xp.ascontiguousarray(view.transpose(axes)).reshape(groups, K, n * P)
        gy2 = gyr.transpose(1, 2, 0, 3).reshape(groups, ocg, n * P)
        gW = xp.matmul(gy2, col.transpose(0, 2, 1))
    gW = gW.reshape((out_c, c // groups) + tuple(ksize))
    if gW.dtype != dtype:
        gW = gW.astype(dtype)
    return gW


def check_inputs(func: str, in_data: tuple, nd: int, groups: int, transposed: bool) -> None:
    """Type check of ``(x, W[, b])`` for an N-d convolution (or deconvolution if ``transposed``).

    Convolution filters have shape ``(out_c, c / groups, *k)``; deconvolution filters
    ``(c, out_c / groups, *k)``.
    """
    type_check.count(func, in_data, (2, 3))
    x, W = in_data[:2]
    type_check.argument(func, 'x', x, kind='f', ndim=nd + 2)
    type_check.argument(func, 'W', W, kind='f', ndim=nd + 2)
    c = x.shape[1]
    if c % groups:
        raise type_check.fail(func, 'x', f'a number of channels divisible by groups={groups}',
                              f'shape {x.shape}')
    if transposed:
        if W.shape[0] != c:
            raise type_check.fail(func, 'W', f'{c} input channels on axis 0 '
                                  f'(x has shape {x.shape})', f'W of shape {W.shape}')
        out_c = W.shape[1] * groups
    else:
        if W.shape[0] % groups:
            raise type_check.fail(func, 'W', f'a number of output channels divisible by '
                                  f'groups={groups}', f'W of shape {W.shape}')
        if W.shape[1] * groups != c:
            if groups == 1:
                want = f'{c} input channels (x has shape {x.shape})'
            else:
                want = (f'{c // groups} input channels per group (x has shape {x.shape}, '
                        f'groups={groups})')
            raise type_check.fail(func, 'W', want, f'W of shape {W.shape}')
        out_c = W.shape[0]
    if len(in_data) == 3:
        b = in_data[2]
        type_check.argument(func, 'b', b, kind='f', ndim=1)
        check_bias_dtype(func, x, W, b)
        if b.shape[0] != out_c:
            raise type_check.fail(func, 'b', f'shape ({out_c},) (one bias per output channel)',
                                  f'shape {b.shape}')


def check_bias_dtype(func: str, x: Any, W: Any, b: Any) -> None:
    """Chainer's rule for the layers with a bias: ``b`` has ``x``'s dtype (``W`` may differ).

    When ``W`` and ``b`` agree with each other (a link's parameters) the input is the odd one
    out, so the message names ``x``; otherwise it names ``b``.
    """
    if b.dtype == x.dtype:
        return
    if b.dtype == W.dtype:
        raise type_check.fail(func, 'x', f'dtype {W.dtype} (the dtype of W and b)', str(x.dtype))
    raise type_check.fail(func, 'b', f'dtype {x.dtype} (the dtype of x)', str(b.dtype))
