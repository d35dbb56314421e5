"""Shared arithmetic and array kernels of convolutions and pooling (N spatial dimensions).

Layout is channels-first: an image has shape ``(n, c, d_1, ..., d_N)``; a *column* array
(the result of :func:`im2col`) has shape ``(n, c, k_1, ..., k_N, o_1, ..., o_N)`` where ``k``
is the kernel size and ``o`` the number of window positions on each spatial axis.

:func:`im2col` reads the windows through a strided view of the (padded) input, so the only copy
is the one that makes the column array contiguous; :func:`col2im` is its adjoint and adds the
windows back with one strided addition per kernel offset.

The three kernels :func:`conv_forward`, :func:`deconv_forward` and :func:`conv_grad_w` are
the array-level bodies of ``ConvolutionND``, ``DeconvolutionND`` and ``ConvolutionNDGradW``;
each is one matrix product per group on the column array.

Example:
    >>> get_conv_outsize(5, 3, 2, 1)
    3
    >>> get_deconv_outsize(3, 3, 2, 1)
    5
"""
from __future__ import annotations

import itertools
import math
import numbers
from typing import Any, Optional, Sequence

import numpy

from chainlet import backend
from chainlet import type_check


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                     d: int = 1) -> int:
    """Number of window positions of a convolution or pooling along one axis.

    Args:
        size: Input length.
        k: Kernel length.
        s: Stride.
        p: Padding added on both sides.
        cover_all: Add positions so that every input element is covered by a window (the last
            window may then run past the padded input, which is filled with the pad value).
        d: Dilation (distance between kernel taps).

    Returns:
        ``(size + 2p - dk) // s + 1`` with ``dk = k + (k - 1)(d - 1)``, plus ``s - 1`` in the
        numerator when ``cover_all``.
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return (size + p * 2 - dk + s - 1) // s + 1
    return (size + p * 2 - dk) // s + 1


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False,
                       d: int = 1) -> int:
    """Output length of a deconvolution along one axis (inverse of :func:`get_conv_outsize`).

    Returns:
        ``s (size - 1) + dk - 2p`` with ``dk = k + (k - 1)(d - 1)``, minus ``s - 1`` when
        ``cover_all``.
    """
    dk = k + (k - 1) * (d - 1)
    if cover_all:
        return s * (size - 1) + dk - s + 1 - 2 * p
    return s * (size - 1) + dk - 2 * p


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


def per_axis(cover_all: Any, ndim: int) -> tuple:
    """``cover_all`` as a tuple of ``ndim`` bools (a single bool applies to every axis)."""
    if isinstance(cover_all, (tuple, list)):
        if len(cover_all) != ndim:
            raise ValueError(f'argument cover_all: expected a bool or {ndim} bools, '
                             f'got {cover_all!r}')
        return tuple(bool(c) for c in cover_all)
    return (bool(cover_all),) * ndim


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


def _pad(img: Any, pad: Sequence[int], extents: Sequence[int], pval: Any) -> Any:
    """Return ``img`` padded by ``pad`` at the start of each spatial axis and up to ``extents``.

    The input itself is returned when nothing needs adding (no copy).
    """
    spatial = img.shape[2:]
    if all(p == 0 for p in pad) and tuple(extents) == tuple(spatial):
        return img
    xp = backend.get_array_module(img)
    padded = xp.empty(img.shape[:2] + tuple(extents), dtype=img.dtype)
    padded.fill(pval)
    inner = tuple(slice(p, p + size) for p, size in zip(pad, spatial))
    padded[(slice(None), slice(None)) + inner] = img
    return padded


def im2col_view(img: Any, ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int],
                pval: Any = 0, cover_all: Any = False,
                dilate: Optional[Sequence[int]] = None,
                outsize: Optional[Sequence[int]] = None) -> Any:
    """Windows of ``img`` as a read-only strided view ``(n, c, *ksize, *outsize)``.

    Only the padding is copied (when ``pad`` is nonzero or ``cover_all`` needs extra room).
    Entries outside the input read ``pval``. Use :func:`im2col` for a contiguous array.

    Args:
        img: Array of shape ``(n, c, d_1, ..., d_N)``.
        ksize, stride, pad: Tuples of ``N`` ints.
        pval: Value of the padding (``0`` for convolution, ``-inf`` for max pooling).
        cover_all: See :func:`get_conv_outsize`; a bool or one bool per axis.
        dilate: Tuple of ``N`` ints (ones by default).
        outsize: Number of window positions per axis, computed when omitted (``cover_all``
            is then not used).
    """
    xp = backend.get_array_module(img)
    nd = img.ndim - 2
    if dilate is None:
        dilate = (1,) * nd
    spatial = img.shape[2:]
    if outsize is None:
        outsize = tuple(get_conv_outsize(size, k, s, p, c, d) for size, k, s, p, d, c
                        in zip(spatial, ksize, stride, pad, dilate, per_axis(cover_all, nd)))
    # The padded array must hold the last tap of the last window; with cover_all that can lie
    # past the symmetric padding.
    extents = tuple(max(size + 2 * p, (o - 1) * s + (k - 1) * d + 1)
                    for size, k, s, p, d, o in zip(spatial, ksize, stride, pad, dilate, outsize))
    padded = _pad(img, pad, extents, pval)
    st = padded.strides
    strides = st[:2] + tuple(st[2 + i] * dilate[i] for i in range(nd)) + \
        tuple(st[2 + i] * stride[i] for i in range(nd))
    shape = padded.shape[:2] + tuple(ksize) + tuple(outsize)
    if xp is numpy:
        return numpy.lib.stride_tricks.as_strided(padded, shape=shape, strides=strides,
                                                  writeable=False)
    # CuPy's as_strided has no ``writeable`` flag; the view is only ever read.
    return xp.lib.stride_tricks.as_strided(padded, shape=shape, strides=strides)


def im2col(img: Any, ksize: Sequence[int], stride: Sequence[int], pad: Sequence[int],
           pval: Any = 0, cover_all: Any = False, dilate: Optional[Sequence[int]] = None,
           outsize: Optional[Sequence[int]] = None) -> Any:
    """Contiguous column array ``(n, c, *ksize, *outsize)`` of the windows of ``img``.

    Same arguments as :func:`im2col_view`.

    Example:
        >>> import numpy as np
        >>> x = np.arange(9.0).reshape(1, 1, 3, 3)
        >>> im2col(x, (2, 2), (1, 1), (0, 0)).reshape(4, 4)
        array([[0., 1., 3., 4.],
               [1., 2., 4., 5.],
               [3., 4., 6., 7.],
               [4., 5., 7., 8.]])
    """
    view = im2col_view(img, ksize, stride, pad, pval, cover_all, dilate, outsize)
    xp = backend.get_array_module(img)
    return xp.ascontiguousarray(view)


def col2im(col: Any, stride: Sequence[int], pad: Sequence[int], size: Sequence[int],
           dilate: Optional[Sequence[int]] = None) -> Any:
    """Adjoint of :func:`im2col`: add every window of ``col`` back at its place in the image.

    Args:
        col: Array of shape ``(n, c, *ksize, *outsize)``.
        stride, pad: Tuples of ``N`` ints used by the matching :func:`im2col`.
        size: Spatial shape ``(d_1, ..., d_N)`` of the image to rebuild (without padding).
        dilate: Tuple of ``N`` ints (ones by default).

    Returns:
        Contiguous array of shape ``(n, c, *size)``; taps that fell in the padding are dropped.
    """
    xp = backend.get_array_module(col)
    nd = (col.ndim - 2) // 2
    if dilate is None:
        dilate = (1,) * nd
    ksize = col.shape[2:2 + nd]
    outsize = col.shape[2 + nd:]
    extents = tuple(max(n + 2 * p, (o - 1) * s + (k - 1) * d + 1)
                    for n, k, s, p, d, o in zip(size, ksize, stride, pad, dilate, outsize))
    img = xp.zeros(col.shape[:2] + extents, dtype=col.dtype)
    # One strided addition per kernel offset; within one addition the target pixels are
    # distinct, so a plain ``+=`` is exact.
    for offset in itertools.product(*[range(k) for k in ksize]):
        target = tuple(slice(j * d, j * d + s * (o - 1) + 1, s)
                       for j, d, s, o in zip(offset, dilate, stride, outsize))
        img[(slice(None), slice(None)) + target] += col[(slice(None), slice(None)) + offset]
    if all(p == 0 for p in pad) and extents == tuple(size):
        return img
    inner = tuple(slice(p, p + n) for p, n in zip(pad, size))
    return xp.ascontiguousarray(img[(slice(None), slice(None)) + inner])


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
        type_check.argument(func, 'b', b, dtype=x.dtype, ndim=1)
        if b.shape[0] != out_c:
            raise type_check.fail(func, 'b', f'shape ({out_c},) (one bias per output channel)',
                                  f'shape {b.shape}')
