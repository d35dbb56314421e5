"""``keras.ops.image``: resizing, patch extraction and colour conversion of image batches.

Images are ``(batch, height, width, channels)`` (``channels_last``) unless
``data_format='channels_first'``; a single image without the batch axis is accepted too.
``resize`` samples like Keras (TensorFlow): pixel centres are aligned (half-pixel), not corners.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.image.resize(np.ones((1, 4, 4, 3), np.float32), (2, 2)).shape
    (1, 2, 2, 3)
"""
from __future__ import annotations

import itertools
from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.layers._utils import (normalize_data_format, normalize_padding,
                                          normalize_tuple, same_padding)
from chainlet.keras.ops._dispatch import keras_op, to_float


def _batched(images: Any, name: str) -> tuple:
    if images.ndim not in (3, 4):
        raise ValueError(f'keras.ops.image.{name}: expected images of rank 3 or 4, got shape '
                         f'{tuple(images.shape)}')
    single = images.ndim == 3
    return (F.expand_dims(images, 0) if single else images), single


def _to_nchw(x: Any, fmt: str) -> Any:
    return F.transpose(x, (0, 3, 1, 2)) if fmt == 'channels_last' else x


def _from_nchw(x: Any, fmt: str) -> Any:
    return F.transpose(x, (0, 2, 3, 1)) if fmt == 'channels_last' else x


@keras_op('images', module='image')
def resize(images: Any, size: Any, interpolation: str = 'bilinear', antialias: bool = False,
           crop_to_aspect_ratio: bool = False, pad_to_aspect_ratio: bool = False,
           fill_mode: str = 'constant', fill_value: float = 0.0,
           data_format: Optional[str] = None) -> Any:
    """Resize to ``size = (height, width)`` with ``'bilinear'`` or ``'nearest'`` sampling."""
    where = 'keras.ops.image.resize'
    fmt = normalize_data_format(data_format, where)
    if interpolation not in ('bilinear', 'nearest'):
        raise ValueError(f"{where}: interpolation must be 'bilinear' or 'nearest', got "
                         f'{interpolation!r}')
    if antialias or crop_to_aspect_ratio or pad_to_aspect_ratio:
        raise ValueError(f'{where}: antialias, crop_to_aspect_ratio and pad_to_aspect_ratio '
                         f'are not supported')
    height, width = normalize_tuple(size, 2, 'size', where)
    x, single = _batched(to_float(images), 'resize')
    x = _to_nchw(x, fmt)
    if interpolation == 'bilinear':
        y = F.resize_images(x, (height, width), mode='bilinear', align_corners=False)
    else:
        xp = x.xp
        h, w = x.shape[2:]
        rows = numpy.minimum(numpy.floor((numpy.arange(height) + 0.5) * h / height), h - 1)
        cols = numpy.minimum(numpy.floor((numpy.arange(width) + 0.5) * w / width), w - 1)
        y = F.get_item(x, (slice(None), slice(None), xp.asarray(rows.astype(int))[:, None],
                           xp.asarray(cols.astype(int))[None, :]))
    y = _from_nchw(y, fmt)
    return y[0] if single else y


@keras_op('images', module='image')
def extract_patches(images: Any, size: Any, strides: Any = None, dilation_rate: Any = 1,
                    padding: str = 'valid', data_format: Optional[str] = None) -> Any:
    """Patches of ``size`` every ``strides`` pixels, each flattened (rows, columns, channels)
    into the channel axis: ``(batch, out_h, out_w, size_h * size_w * channels)``."""
    where = 'keras.ops.image.extract_patches'
    fmt = normalize_data_format(data_format, where)
    ksize = normalize_tuple(size, 2, 'size', where)
    stride = ksize if strides is None else normalize_tuple(strides, 2, 'strides', where)
    dilate = normalize_tuple(dilation_rate, 2, 'dilation_rate', where)
    padding = normalize_padding(padding, where)
    x, single = _batched(to_float(images), 'extract_patches')
    x = _to_nchw(x, fmt)
    if padding == 'same':
        pads = [same_padding(n, k, s, d) for n, k, s, d in
                zip(x.shape[2:], ksize, stride, dilate)]
        x = F.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    cols = F.im2col(x, ksize, stride, 0, cover_all=False, dilate=dilate)  # (n, c*kh*kw, oh, ow)
    n, c = x.shape[:2]
    oh, ow = cols.shape[2:]
    cols = F.reshape(cols, (n, c, ksize[0], ksize[1], oh, ow))
    if fmt == 'channels_last':
        out = F.reshape(F.transpose(cols, (0, 4, 5, 2, 3, 1)), (n, oh, ow, -1))
    else:
        out = F.reshape(F.transpose(cols, (0, 2, 3, 1, 4, 5)), (n, -1, oh, ow))
    return out[0] if single else out


@keras_op('images', module='image')
def rgb_to_grayscale(images: Any, data_format: Optional[str] = None) -> Any:
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B``, keeping a channel axis of size 1."""
    fmt = normalize_data_format(data_format, 'keras.ops.image.rgb_to_grayscale')
    x = to_float(images)
    axis = -1 if fmt == 'channels_last' else x.ndim - 3
    if x.shape[axis] != 3:
        raise ValueError(f'keras.ops.image.rgb_to_grayscale: expected 3 channels on axis '
                         f'{axis}, got shape {tuple(x.shape)}')
    shape = [1] * x.ndim
    shape[axis] = 3
    weights = x.xp.asarray(numpy.array([0.2989, 0.5870, 0.1140]).reshape(shape), x.dtype)
    return F.sum(x * weights, axis=axis % x.ndim, keepdims=True)


@keras_op('images', module='image')
def pad_images(images: Any, top_padding: Optional[int] = None,
               left_padding: Optional[int] = None, bottom_padding: Optional[int] = None,
               right_padding: Optional[int] = None, target_height: Optional[int] = None,
               target_width: Optional[int] = None, data_format: Optional[str] = None) -> Any:
    """Zero-pad to ``target_height`` x ``target_width`` (or by the given margins)."""
    fmt = normalize_data_format(data_format, 'keras.ops.image.pad_images')
    x, single = _batched(images, 'pad_images')
    h_axis = 1 if fmt == 'channels_last' else 2
    h, w = x.shape[h_axis], x.shape[h_axis + 1]
    top, left = top_padding or 0, left_padding or 0
    bottom = bottom_padding if bottom_padding is not None else \
        (target_height - h - top if target_height is not None else 0)
    right = right_padding if right_padding is not None else \
        (target_width - w - left if target_width is not None else 0)
    if min(top, left, bottom, right) < 0:
        raise ValueError(f'keras.ops.image.pad_images: the target size is smaller than the '
                         f'images ({h}x{w})')
    width = [(0, 0)] * 4
    width[h_axis], width[h_axis + 1] = (top, bottom), (left, right)
    y = F.pad(x, tuple(width))
    return y[0] if single else y


@keras_op('images', module='image')
def crop_images(images: Any, top_cropping: Optional[int] = None,
                left_cropping: Optional[int] = None, bottom_cropping: Optional[int] = None,
                right_cropping: Optional[int] = None, target_height: Optional[int] = None,
                target_width: Optional[int] = None, data_format: Optional[str] = None) -> Any:
    """Crop to ``target_height`` x ``target_width`` (or by the given margins)."""
    fmt = normalize_data_format(data_format, 'keras.ops.image.crop_images')
    x, single = _batched(images, 'crop_images')
    h_axis = 1 if fmt == 'channels_last' else 2
    h, w = x.shape[h_axis], x.shape[h_axis + 1]
    top, left = top_cropping or 0, left_cropping or 0
    height = target_height if target_height is not None else h - top - (bottom_cropping or 0)
    width = target_width if target_width is not None else w - left - (right_cropping or 0)
    if top + height > h or left + width > w or height < 0 or width < 0:
        raise ValueError(f'keras.ops.image.crop_images: the crop does not fit in the images '
                         f'({h}x{w})')
    key = [slice(None)] * 4
    key[h_axis], key[h_axis + 1] = slice(top, top + height), slice(left, left + width)
    y = x[tuple(key)]
    return y[0] if single else y


@keras_op('images', module='image')
def gaussian_blur(images: Any, kernel_size: Any = (3, 3), sigma: Any = (1.0, 1.0),
                  data_format: Optional[str] = None) -> Any:
    """Blur every channel with a normalized Gaussian kernel (zero padding, ``'same'`` output
    size)."""
    where = 'keras.ops.image.gaussian_blur'
    fmt = normalize_data_format(data_format, where)
    ksize = normalize_tuple(kernel_size, 2, 'kernel_size', where)
    sig = (float(sigma),) * 2 if isinstance(sigma, (int, float)) else \
        tuple(float(s) for s in sigma)
    x, single = _batched(to_float(images), 'gaussian_blur')
    x = _to_nchw(x, fmt)
    c = x.shape[1]

    def taps(k: int, s: float) -> numpy.ndarray:
        t = numpy.arange(k) - (k - 1) / 2.0
        w = numpy.exp(-0.5 * (t / s) ** 2)
        return w / w.sum()
    kernel = numpy.outer(taps(ksize[0], sig[0]), taps(ksize[1], sig[1]))
    W = x.xp.asarray(numpy.broadcast_to(kernel, (c, 1) + ksize).astype(x.dtype))
    pads = [same_padding(n, k, 1) for n, k in zip(x.shape[2:], ksize)]
    x = F.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    y = F.convolution_nd(x, W, None, stride=1, pad=0, groups=c)
    y = _from_nchw(y, fmt)
    return y[0] if single else y


def _channels(x: Any, fmt: str) -> tuple:
    axis = -1 if fmt == 'channels_last' else x.ndim - 3
    return axis, [x[(slice(None),) * (axis % x.ndim) + (i,)] for i in range(3)]


@keras_op('images', module='image')
def rgb_to_hsv(images: Any, data_format: Optional[str] = None) -> Any:
    """RGB in [0, 1] to hue, saturation, value (each in [0, 1]); no gradient."""
    fmt = normalize_data_format(data_format, 'keras.ops.image.rgb_to_hsv')
    x = to_float(images).array
    xp = numpy if isinstance(x, numpy.ndarray) else images.xp
    axis, (r, g, b) = _channels(x, fmt)
    v = xp.maximum(xp.maximum(r, g), b)
    delta = v - xp.minimum(xp.minimum(r, g), b)
    s = xp.where(v > 0, delta / xp.where(v > 0, v, 1), 0)
    safe = xp.where(delta > 0, delta, 1)
    h = xp.where(v == g, 2 + (b - r) / safe, 4 + (r - g) / safe)
    h = xp.where(v == r, (g - b) / safe, h)
    h = xp.where(delta > 0, (h / 6.0) % 1.0, 0)
    return xp.stack([h, s, v], axis=axis).astype(x.dtype)


@keras_op('images', module='image')
def hsv_to_rgb(images: Any, data_format: Optional[str] = None) -> Any:
    """Hue, saturation, value (each in [0, 1]) to RGB; no gradient."""
    fmt = normalize_data_format(data_format, 'keras.ops.image.hsv_to_rgb')
    x = to_float(images).array
    xp = numpy if isinstance(x, numpy.ndarray) else images.xp
    axis, (h, s, v) = _channels(x, fmt)

    def channel(n: float) -> Any:
        k = (n + h * 6.0) % 6.0
        return v - v * s * xp.clip(xp.minimum(k, 4.0 - k), 0.0, 1.0)
    return xp.stack([channel(5.0), channel(3.0), channel(1.0)], axis=axis).astype(x.dtype)


_FILL_MODES = ('constant', 'nearest', 'wrap', 'mirror', 'reflect')


def _fill_index(xp: Any, index: Any, size: int, mode: str) -> tuple:
    """Integer ``index`` mapped into ``[0, size)`` by ``mode``; with the mask of indices that
    were inside (only ``'constant'`` uses it: outside cells take the fill value)."""
    inside = (index >= 0) & (index < size)
    if mode == 'constant' or mode == 'nearest':
        return xp.clip(index, 0, size - 1), inside
    if mode == 'wrap':
        return index % size, inside
    if mode == 'mirror':
        if size == 1:
            return xp.zeros_like(index), inside
        period = 2 * size - 2
        j = xp.abs(index) % period
        return xp.where(j >= size, period - j, j), inside
    period = 2 * size  # 'reflect': the edge cell is repeated
    j = index % period
    return xp.where(j >= size, period - 1 - j, j), inside


def _sample(x: Any, lead: tuple, coords: list, shape: tuple, order: int, fill_mode: str,
            fill_value: float, where: str) -> Any:
    """``x[lead + coords]`` at real coordinates ``coords`` over the axes after ``lead``,
    interpolated (``order`` 0 or 1) with ``fill_mode`` beyond the edges."""
    if fill_mode not in _FILL_MODES:
        raise ValueError(f'{where}: fill_mode must be one of {list(_FILL_MODES)}, got '
                         f'{fill_mode!r}')
    if order not in (0, 1):
        raise ValueError(f'{where}: order/interpolation must be 0 (nearest) or 1 (linear), got '
                         f'{order!r}')
    xp = x.xp
    sizes = shape
    if order == 0:
        corners = [[(xp.floor(c + 0.5).astype('int64'), None)] for c in coords]
    else:
        corners = []
        for c in coords:
            lo = xp.floor(c)
            frac = (c - lo).astype(x.dtype)
            lo = lo.astype('int64')
            corners.append([(lo, 1 - frac), (lo + 1, frac)])
    out = None
    for choice in itertools.product(*corners):
        index: list = []
        weight: Any = None  # arrays once the first axis is seen
        valid: Any = None
        for (i, w), size in zip(choice, sizes):
            j, inside = _fill_index(xp, i, size, fill_mode)
            index.append(j)
            weight = w if weight is None else (weight if w is None else weight * w)
            valid = inside if valid is None else valid & inside
        value = F.get_item(x, lead + tuple(index))
        extra = value.ndim - index[0].ndim  # trailing axes (channels) not indexed
        if fill_mode == 'constant':
            keep = valid.astype(x.dtype).reshape(valid.shape + (1,) * extra)
            value = value * keep + float(fill_value) * (1 - keep)
        if weight is not None:
            value = value * weight.reshape(weight.shape + (1,) * extra)
        out = value if out is None else out + value
    return out


@keras_op('inputs', 'coordinates', module='image')
def map_coordinates(inputs: Any, coordinates: Any, order: int, fill_mode: str = 'constant',
                    fill_value: float = 0.0) -> Any:
    """``inputs`` sampled at ``coordinates`` (shape ``(inputs.ndim, ...)``) with nearest
    (``order=0``) or linear (``order=1``) interpolation; beyond the edges ``fill_mode``
    (``'constant'``, ``'nearest'``, ``'wrap'``, ``'mirror'``, ``'reflect'``) decides."""
    x = to_float(inputs)
    coords = coordinates.array.astype('float64')
    if coords.shape[0] != x.ndim:
        raise ValueError(f'keras.ops.image.map_coordinates: coordinates must have shape '
                         f'({x.ndim}, ...), got {coords.shape}')
    return _sample(x, (), list(coords), tuple(x.shape), order, fill_mode, fill_value,
                   'keras.ops.image.map_coordinates')


@keras_op('images', 'transform', module='image')
def affine_transform(images: Any, transform: Any, interpolation: str = 'bilinear',
                     fill_mode: str = 'constant', fill_value: float = 0.0,
                     data_format: Optional[str] = None) -> Any:
    """Projective transform of images: a row ``[a0, a1, a2, b0, b1, b2, c0, c1]`` of
    ``transform`` (one, or one per image) maps the output pixel ``(x, y)`` (column, row) to the
    input point ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``, ``k = c0 x + c1 y + 1``."""
    where = 'keras.ops.image.affine_transform'
    fmt = normalize_data_format(data_format, where)
    if interpolation not in ('bilinear', 'nearest'):
        raise ValueError(f"{where}: interpolation must be 'bilinear' or 'nearest', got "
                         f'{interpolation!r}')
    x, single = _batched(to_float(images), 'affine_transform')
    if fmt == 'channels_first':
        x = F.transpose(x, (0, 2, 3, 1))
    xp = x.xp
    t = transform.array.astype('float64')
    t = t[None] if t.ndim == 1 else t
    if t.ndim != 2 or t.shape[-1] != 8 or t.shape[0] not in (1, x.shape[0]):
        raise ValueError(f'{where}: transform must have shape (8,) or (batch, 8), got '
                         f'{tuple(transform.shape)}')
    t = xp.broadcast_to(t, (x.shape[0], 8))
    n, h, w = x.shape[:3]
    rows, cols = xp.meshgrid(xp.arange(h, dtype='float64'), xp.arange(w, dtype='float64'),
                             indexing='ij')

    def row(i: int) -> Any:
        return t[:, i].reshape(-1, 1, 1)
    k = row(6) * cols + row(7) * rows + 1.0
    src_x = (row(0) * cols + row(1) * rows + row(2)) / k
    src_y = (row(3) * cols + row(4) * rows + row(5)) / k
    batch = xp.broadcast_to(xp.arange(n).reshape(-1, 1, 1), (n, h, w))
    y = _sample(x, (batch,), [src_y, src_x], (h, w), 1 if interpolation == 'bilinear' else 0,
                fill_mode, fill_value, where)
    if fmt == 'channels_first':
        y = F.transpose(y, (0, 3, 1, 2))
    return y[0] if single else y


__all__ = ['resize', 'extract_patches', 'rgb_to_grayscale', 'pad_images', 'crop_images',
           'gaussian_blur', 'rgb_to_hsv', 'hsv_to_rgb', 'map_coordinates', 'affine_transform']
