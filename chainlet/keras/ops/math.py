"""``keras.ops.math``: segment reductions, top-k, log-sum-exp, ``erf``, ``rsqrt`` and more.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.segment_sum(np.array([1., 2., 3.]), np.array([0, 0, 1])).tolist()
    [3.0, 3.0]
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet
import chainlet.functions as F
from chainlet.keras.ops._dispatch import (array_of, axis_tuple, const, index_grids, is_float,
                                          keras_op, to_float)


def _num_segments(ids: Any, num_segments: Optional[int]) -> int:
    if num_segments is not None:
        return int(num_segments)
    return int(ids.max()) + 1 if ids.size else 0


@keras_op('data', 'segment_ids', module='math')
def segment_sum(data: Any, segment_ids: Any, num_segments: Optional[int] = None,
                sorted: bool = False) -> Any:
    """Sum of the rows of ``data`` in each segment (ids outside ``[0, num_segments)`` are
    dropped, as in Keras)."""
    ids = segment_ids.array.astype('int64').reshape(-1)
    n = _num_segments(ids, num_segments)
    xp = data.xp
    keep = (ids >= 0) & (ids < n)
    if not bool(keep.all()):
        data = F.get_item(data, xp.nonzero(keep)[0])
        ids = ids[keep]
    shape = (n,) + tuple(data.shape[1:])
    if not is_float(data):
        out = xp.zeros(shape, data.dtype)
        xp.add.at(out, ids, data.array)
        return out
    return F.scatter_add(xp.zeros(shape, data.dtype), ids, data)


@keras_op('data', 'segment_ids', module='math')
def segment_max(data: Any, segment_ids: Any, num_segments: Optional[int] = None,
                sorted: bool = False) -> Any:
    """Maximum of the rows of ``data`` in each segment; an empty segment gives the dtype's
    lowest value. The gradient is shared among tied maxima."""
    ids = segment_ids.array.astype('int64').reshape(-1)
    n = _num_segments(ids, num_segments)
    xp = data.xp
    keep = (ids >= 0) & (ids < n)
    if not bool(keep.all()):
        data = F.get_item(data, xp.nonzero(keep)[0])
        ids = ids[keep]
    shape = (n,) + tuple(data.shape[1:])
    low = numpy.finfo(data.dtype).min if is_float(data) else numpy.iinfo(data.dtype).min
    best = xp.full(shape, low, data.dtype)
    xp.maximum.at(best, ids, data.array)
    if not is_float(data):
        return best
    winner = (data.array == best[ids]).astype(data.dtype)
    total = F.scatter_add(xp.zeros(shape, data.dtype), ids, data * winner)
    count = xp.zeros(shape, data.dtype)
    xp.add.at(count, ids, winner)
    empty = count == 0
    mean = total / xp.where(empty, 1, count).astype(data.dtype)
    return F.where(empty, const(best, data), mean)


@keras_op('x', module='math')
def top_k(x: Any, k: int, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest entries along the last axis (int32
    indices; ties keep the lower index first)."""
    xp = x.xp
    if not 0 <= k <= x.shape[-1]:
        raise ValueError(f'keras.ops.top_k: k must be in [0, {x.shape[-1]}], got {k}')
    order = xp.argsort(-x.array if is_float(x) or x.dtype.kind == 'i' else ~x.array,
                       axis=-1, kind='stable')[..., :k]
    grids = index_grids(xp, order.shape)
    grids[-1] = order
    values = F.get_item(x, tuple(grids)) if is_float(x) else x.array[tuple(grids)]
    return values, order.astype('int32')


@keras_op('targets', 'predictions', module='math')
def in_top_k(targets: Any, predictions: Any, k: int) -> Any:
    """Whether each target's prediction is among the ``k`` largest of its row (ties count)."""
    p = predictions.array
    t = targets.array.astype('int64').reshape(-1)
    xp = predictions.xp
    target_score = p[xp.arange(p.shape[0]), t]
    higher = (p > target_score[:, None]).sum(axis=1)
    return (higher < k) & xp.isfinite(target_score)


@keras_op('x', module='math')
def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""
    x = to_float(x)
    return F.logsumexp(x, axis=axis_tuple(axis, x.ndim), keepdims=keepdims)


@keras_op('x', module='math')
def rsqrt(x: Any) -> Any:
    """``1 / sqrt(x)``."""
    return F.rsqrt(to_float(x))


@keras_op('x', module='math')
def erf(x: Any) -> Any:
    """The error function."""
    return F.erf(to_float(x))


@keras_op('x', module='math')
def erfinv(x: Any) -> Any:
    """The inverse error function."""
    return F.erfinv(to_float(x))


@keras_op('x', module='math')
def logdet(x: Any) -> Any:
    """``log(det(x))`` of (batches of) positive-definite matrices."""
    from chainlet.keras.ops.linalg import det
    return F.log(det.impl(to_float(x)))


@keras_op('x', module='math')
def extract_sequences(x: Any, sequence_length: int, sequence_stride: int) -> Any:
    """Frames of ``sequence_length`` samples every ``sequence_stride`` along the last axis."""
    n = x.shape[-1]
    count = 1 + (n - sequence_length) // sequence_stride if n >= sequence_length else 0
    index = (numpy.arange(count)[:, None] * sequence_stride +
             numpy.arange(sequence_length)[None, :])
    key = (Ellipsis, x.xp.asarray(index))
    return F.get_item(x, key) if is_float(x) else x.array[key]


def _pair(x: Any, name: str) -> tuple:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f'keras.ops.{name}: expected a pair (real, imag) of tensors, got '
                         f'{type(x).__name__}')
    real, imag = to_float(x[0]), to_float(x[1])
    if tuple(real.shape) != tuple(imag.shape):
        raise ValueError(f'keras.ops.{name}: real and imag must have one shape, got '
                         f'{tuple(real.shape)} and {tuple(imag.shape)}')
    return real, imag


def _last_axes(pair: tuple, transform: Any) -> tuple:
    """``transform`` over the last axis, then over the second to last."""
    real, imag = transform(pair)
    real, imag = F.swapaxes(real, -1, -2), F.swapaxes(imag, -1, -2)
    real, imag = transform((real, imag))
    return F.swapaxes(real, -1, -2), F.swapaxes(imag, -1, -2)


@keras_op('*x', module='math')
def fft(x: Any) -> Any:
    """Discrete Fourier transform over the last axis of ``x = (real, imag)``."""
    return tuple(F.fft(_pair(x, 'fft')))


@keras_op('*x', module='math')
def ifft(x: Any) -> Any:
    """Inverse discrete Fourier transform over the last axis of ``x = (real, imag)``."""
    return tuple(F.ifft(_pair(x, 'ifft')))


@keras_op('*x', module='math')
def fft2(x: Any) -> Any:
    """2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``."""
    return _last_axes(_pair(x, 'fft2'), F.fft)


@keras_op('*x', module='math')
def ifft2(x: Any) -> Any:
    """2-D inverse discrete Fourier transform over the last two axes of ``x = (real, imag)``."""
    return _last_axes(_pair(x, 'ifft2'), F.ifft)


@keras_op('x', module='math')
def rfft(x: Any, fft_length: Optional[int] = None) -> Any:
    """``(real, imag)`` of the Fourier transform of a real signal over the last axis: the
    ``fft_length // 2 + 1`` non-negative frequencies."""
    x = to_float(x)
    n = x.shape[-1] if fft_length is None else int(fft_length)
    x = _fit_length(x, n)
    real, imag = F.fft((x, x * 0))
    return real[..., :n // 2 + 1], imag[..., :n // 2 + 1]


@keras_op('*x', module='math')
def irfft(x: Any, fft_length: Optional[int] = None) -> Any:
    """The real signal whose ``rfft`` is ``x = (real, imag)`` (length ``fft_length``, by
    default ``2 * (m - 1)``)."""
    real, imag = _pair(x, 'irfft')
    m = real.shape[-1]
    n = 2 * (m - 1) if fft_length is None else int(fft_length)
    half = n // 2 + 1
    real, imag = _fit_length(real, half), _fit_length(imag, half)
    # the negative frequencies mirror the positive ones (Hermitian symmetry)
    mirror = numpy.arange(n - half, 0, -1)
    key = (Ellipsis, real.xp.asarray(mirror))
    full_real = F.concat([real, F.get_item(real, key)], axis=-1)
    full_imag = F.concat([imag, -F.get_item(imag, key)], axis=-1)
    out, _ = F.ifft((full_real, full_imag))
    return out


def _window(window: Any, length: int, fft_length: int, like: Any) -> Any:
    """The analysis window, zero-padded to ``fft_length`` and centred (as Keras does)."""
    if window is None:
        w = numpy.ones(length)
    elif isinstance(window, str):
        n = numpy.arange(length)
        if window in ('hann', 'hanning'):
            w = 0.5 - 0.5 * numpy.cos(2 * numpy.pi * n / length)
        elif window == 'hamming':
            w = 0.54 - 0.46 * numpy.cos(2 * numpy.pi * n / length)
        else:
            raise ValueError(f"keras.ops.stft: window must be 'hann', 'hamming', a tensor or "
                             f'None, got {window!r}')
    else:
        w = numpy.asarray(chainlet.backend.to_cpu(array_of(window)), dtype='float64')
        if w.shape != (length,):
            raise ValueError(f'keras.ops.stft: a window tensor must have shape '
                             f'({length},), got {w.shape}')
    left = (fft_length - length) // 2
    w = numpy.pad(w, (left, fft_length - length - left))
    return like.xp.asarray(w.astype(like.dtype))


def _check_lengths(name: str, sequence_length: int, fft_length: int) -> None:
    if sequence_length > fft_length:
        raise ValueError(f'keras.ops.{name}: sequence_length ({sequence_length}) must not '
                         f'exceed fft_length ({fft_length})')


@keras_op('x', module='math')
def stft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int,
         window: Any = 'hann', center: bool = True) -> Any:
    """Short-time Fourier transform over the last axis: ``(real, imag)`` of shape
    ``(..., frames, fft_length // 2 + 1)``; ``center`` reflect-pads ``fft_length // 2`` on
    both sides first."""
    _check_lengths('stft', sequence_length, fft_length)
    x = to_float(x)
    if center:
        half = fft_length // 2
        x = F.pad(x, ((0, 0),) * (x.ndim - 1) + ((half, half),), mode='reflect')
    frames = extract_sequences.impl(x, fft_length, sequence_stride)
    win = _window(window, sequence_length, fft_length, frames)
    return rfft.impl(frames * win, fft_length)


@keras_op('*x', module='math')
def istft(x: Any, sequence_length: int, sequence_stride: int, fft_length: int,
          length: Optional[int] = None, window: Any = 'hann', center: bool = True) -> Any:
    """Inverse of ``stft``: windowed overlap-add of the frames, divided by the overlap-added
    squared window (where it is not ~0); ``length`` trims or pads the result."""
    _check_lengths('istft', sequence_length, fft_length)
    frames = irfft.impl(x, fft_length)  # (..., m, fft_length)
    win = _window(window, sequence_length, fft_length, frames)
    frames = frames * win
    lead = tuple(frames.shape[:-2])
    m = frames.shape[-2]
    total = (m - 1) * sequence_stride + fft_length
    index = (numpy.arange(m)[:, None] * sequence_stride +
             numpy.arange(fft_length)[None, :]).reshape(-1)
    xp = frames.xp
    flat = F.reshape(frames, (-1, m * fft_length))
    out = F.scatter_add(xp.zeros((flat.shape[0], total), frames.dtype),
                        (slice(None), xp.asarray(index)), flat)
    norm = numpy.zeros(total)
    numpy.add.at(norm, index, numpy.tile(chainlet.backend.to_cpu(win) ** 2, m))
    norm = xp.asarray(numpy.where(norm > 1e-10, norm, 1.0).astype(frames.dtype))
    out = F.reshape(out / norm, lead + (total,))
    start = fft_length // 2 if center else 0
    stop = total - (fft_length // 2 if center else 0)
    out = out[..., start:stop]
    if length is not None:
        out = _fit_length(out, int(length))
    return out


def _fit_length(x: Any, n: int) -> Any:
    """``x`` cut or zero-padded to length ``n`` on its last axis."""
    length = x.shape[-1]
    if length > n:
        return x[..., :n]
    if length < n:
        return F.pad(x, ((0, 0),) * (x.ndim - 1) + ((0, n - length),))
    return x


__all__ = ['segment_sum', 'segment_max', 'top_k', 'in_top_k', 'logsumexp', 'rsqrt', 'erf',
           'erfinv', 'logdet', 'extract_sequences', 'fft', 'ifft', 'fft2', 'ifft2', 'rfft',
           'irfft', 'stft', 'istft']
