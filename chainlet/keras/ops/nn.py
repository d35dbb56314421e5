"""``keras.ops.nn``: activations, convolution, pooling, losses and normalization ops.

Convolutions and poolings take Keras's layouts: data ``channels_last`` unless
``data_format='channels_first'``, kernels ``(*kernel_size, in_channels / groups, filters)``
(``depthwise_conv``: ``(*kernel_size, in_channels, multiplier)``), and ``'same'`` padding
with the extra cell at the bottom/right when the total padding is odd. Losses are per element
(``binary_crossentropy``) or per sample (the categorical ones), not reduced, as in Keras.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.softmax(np.array([0.0, 0.0])).tolist()
    [0.5, 0.5]
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.layers.convolutional import transpose_output_length
from chainlet.keras.layers._utils import (from_channels_first, normalize_data_format,
                                          normalize_padding, normalize_tuple, same_padding,
                                          spatial_padding, to_channels_first)
from chainlet.keras.ops._dispatch import (FLOATX, array_of, axis_tuple, cast, const, keras_op,
                                          promote, to_float)

EPSILON = 1e-7


def _act(name: str, fn: Any, doc: str) -> Any:
    def impl(x: Any) -> Any:
        return fn(to_float(x))
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = doc
    return keras_op('x', module='nn')(impl)


relu = _act('relu', F.relu, '``max(x, 0)``.')
relu6 = _act('relu6', F.relu6, '``min(max(x, 0), 6)``.')
sigmoid = _act('sigmoid', F.sigmoid, '``1 / (1 + exp(-x))``.')
softplus = _act('softplus', F.softplus, '``log(1 + exp(x))``.')
softsign = _act('softsign', lambda x: x / (F.absolute(x) + 1.0), '``x / (1 + |x|)``.')
silu = _act('silu', F.silu, '``x * sigmoid(x)``.')
swish = silu
log_sigmoid = _act('log_sigmoid', lambda x: -F.softplus(-x), '``log(sigmoid(x))``, stably.')
selu = _act('selu', F.selu, 'Scaled ELU with the self-normalizing constants.')
hard_sigmoid = _act('hard_sigmoid', lambda x: F.relu6(x + 3.0) / 6.0,
                    "``relu6(x + 3) / 6`` (Keras 3's definition).")
hard_silu = _act('hard_silu', lambda x: x * (F.relu6(x + 3.0) / 6.0), '``x * hard_sigmoid(x)``.')
hard_swish = hard_silu
hard_tanh = _act('hard_tanh', lambda x: F.clip(x, -1.0, 1.0), '``clip(x, -1, 1)``.')
tanh_shrink = _act('tanh_shrink', lambda x: x - F.tanh(x), '``x - tanh(x)``.')
sparse_plus = _act('sparse_plus', lambda x: F.where(
    x.array <= -1, x * 0, F.where(x.array >= 1, x, F.square(x + 1.0) / 4.0)),
    '0 below -1, ``x`` above 1, ``(x + 1)^2 / 4`` between.')


@keras_op('x', module='nn')
def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    """``x`` for positive ``x``, else ``negative_slope * x``."""
    return F.leaky_relu(to_float(x), negative_slope)


@keras_op('x', module='nn')
def elu(x: Any, alpha: float = 1.0) -> Any:
    """``x`` for positive ``x``, else ``alpha * (exp(x) - 1)``."""
    return F.elu(to_float(x), alpha)


@keras_op('x', module='nn')
def celu(x: Any, alpha: float = 1.0) -> Any:
    """Continuously differentiable ELU."""
    return F.celu(to_float(x), alpha)


@keras_op('x', module='nn')
def gelu(x: Any, approximate: bool = True) -> Any:
    """Gaussian error linear unit; Keras's default is the tanh approximation."""
    x = to_float(x)
    if not approximate:
        return F.gelu(x)
    c = float(numpy.sqrt(2.0 / numpy.pi))
    return 0.5 * x * (1.0 + F.tanh(c * (x + 0.044715 * x * x * x)))


@keras_op('x', module='nn')
def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves of ``x`` along ``axis``."""
    x = to_float(x)
    if x.shape[axis] % 2:
        raise ValueError(f'keras.ops.glu: axis {axis} must have an even size, got shape '
                         f'{x.shape}')
    a, b = F.split_axis(x, 2, axis)
    return a * F.sigmoid(b)


@keras_op('x', module='nn')
def squareplus(x: Any, b: float = 4) -> Any:
    """``(x + sqrt(x^2 + b)) / 2``."""
    x = to_float(x)
    return (x + F.sqrt(F.square(x) + float(b))) / 2.0


@keras_op('x', module='nn')
def soft_shrink(x: Any, threshold: float = 0.5) -> Any:
    """``x - threshold`` above it, ``x + threshold`` below ``-threshold``, else 0."""
    x = to_float(x)
    a = x.array
    return F.where(a > threshold, x - threshold,
                   F.where(a < -threshold, x + threshold, x * 0))


@keras_op('x', module='nn')
def hard_shrink(x: Any, threshold: float = 0.5) -> Any:
    """``x`` where ``|x| > threshold``, else 0."""
    x = to_float(x)
    return x * (abs(x.array) > threshold).astype(x.dtype)


@keras_op('x', module='nn')
def softmax(x: Any, axis: Any = -1) -> Any:
    """Softmax over ``axis`` (the last by default)."""
    x = to_float(x)
    if axis is None or not isinstance(axis, (int, numpy.integer)):
        axes = axis_tuple(axis, x.ndim) or tuple(range(x.ndim))
        return F.exp(x - F.broadcast_to(F.logsumexp(x, axis=axes, keepdims=True), x.shape))
    return F.softmax(x, axis=int(axis) % x.ndim)


@keras_op('x', module='nn')
def log_softmax(x: Any, axis: Any = -1) -> Any:
    """Log of the softmax over ``axis``, computed stably."""
    x = to_float(x)
    if axis is None or not isinstance(axis, (int, numpy.integer)):
        axes = axis_tuple(axis, x.ndim) or tuple(range(x.ndim))
        return x - F.broadcast_to(F.logsumexp(x, axis=axes, keepdims=True), x.shape)
    return F.log_softmax(x, axis=int(axis) % x.ndim)


# -- encodings ------------------------------------------------------------------------------

@keras_op('x', module='nn')
def one_hot(x: Any, num_classes: int, axis: int = -1, dtype: Any = None,
            sparse: bool = False) -> Any:
    """One-hot encoding along a new ``axis``; labels outside ``[0, num_classes)`` give zeros."""
    if sparse:
        raise ValueError('keras.ops.one_hot: sparse=True is not supported (chainlet has no '
                         'sparse tensors)')
    xp = x.xp
    labels = x.array.astype('int64')
    out = (labels[..., None] == xp.arange(num_classes)).astype(dtype or FLOATX)
    if axis != -1 and axis != out.ndim - 1:
        out = xp.moveaxis(out, -1, axis)
    return out


@keras_op('inputs', module='nn')
def multi_hot(inputs: Any, num_classes: int, axis: int = -1, dtype: Any = None,
              sparse: bool = False) -> Any:
    """Multi-hot encoding: the last axis of the labels collapses into one ``num_classes`` row."""
    encoded = one_hot.impl(inputs, num_classes, -1, dtype or FLOATX, sparse)
    if inputs.ndim == 1:
        encoded = encoded[None]
    out = encoded.max(axis=-2)
    return out if axis == -1 else inputs.xp.moveaxis(out, -1, axis)


# -- losses ---------------------------------------------------------------------------------

@keras_op('target', 'output', module='nn')
def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    """Elementwise binary cross-entropy between ``target`` and probabilities (or logits)."""
    t, y = promote(target, output, floating=True)
    _same_shape('binary_crossentropy', t, y)
    if from_logits:
        return F.softplus(y) - y * t
    p = F.clip(y, EPSILON, 1.0 - EPSILON)
    return -(t * F.log(p) + (1.0 - t) * F.log(1.0 - p))


@keras_op('target', 'output', module='nn')
def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                             axis: int = -1) -> Any:
    """Cross-entropy over ``axis`` between one-hot (or soft) targets and probabilities (or
    logits); ``output`` probabilities are normalized to sum to 1 first, as in Keras."""
    t, y = promote(target, output, floating=True)
    _same_shape('categorical_crossentropy', t, y)
    axis = axis % y.ndim
    if from_logits:
        logp = F.log_softmax(y, axis=axis)
    else:
        p = y / F.broadcast_to(F.sum(y, axis=axis, keepdims=True), y.shape)
        logp = F.log(F.clip(p, EPSILON, 1.0 - EPSILON))
    return -F.sum(t * logp, axis=axis)


@keras_op('target', 'output', module='nn')
def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                    axis: int = -1) -> Any:
    """Cross-entropy between integer labels and probabilities (or logits) over ``axis``."""
    y = to_float(output)
    t = target.array
    if t.ndim == y.ndim and t.shape[-1] == 1:
        t = t.reshape(t.shape[:-1])
    if axis % y.ndim != y.ndim - 1:
        y = F.moveaxis(y, axis, -1)
    if tuple(t.shape) != tuple(y.shape[:-1]):
        raise ValueError(f'keras.ops.sparse_categorical_crossentropy: target must have the '
                         f'shape of output without its class axis; got target {target.shape} '
                         f'and output {output.shape}')
    n = y.shape[-1]
    if t.size and (int(t.min()) < 0 or int(t.max()) >= n):
        raise ValueError(f'keras.ops.sparse_categorical_crossentropy: labels must be in '
                         f'[0, {n}), got values from {int(t.min())} to {int(t.max())}')
    logp = F.log_softmax(y, axis=-1) if from_logits else \
        F.log(F.clip(y / F.broadcast_to(F.sum(y, axis=-1, keepdims=True), y.shape),
                     EPSILON, 1.0 - EPSILON))
    flat = F.reshape(logp, (-1, n))
    picked = F.select_item(flat, t.reshape(-1).astype('int32'))
    return -F.reshape(picked, t.shape)


def _same_shape(name: str, t: Any, y: Any) -> None:
    if tuple(t.shape) != tuple(y.shape):
        raise ValueError(f'keras.ops.{name}: target and output must have the same shape, got '
                         f'{tuple(t.shape)} and {tuple(y.shape)}')


# -- normalization ----------------------------------------------------------------------------

@keras_op('x', module='nn')
def moments(x: Any, axes: Any, keepdims: bool = False, synchronized: bool = False) -> Any:
    """``(mean, variance)`` over ``axes``."""
    x = to_float(x)
    axes = axis_tuple(axes, x.ndim)
    mean = F.mean(x, axis=axes, keepdims=True)
    variance = F.mean(F.square(x - F.broadcast_to(mean, x.shape)), axis=axes, keepdims=True)
    if not keepdims:
        shape = tuple(s for i, s in enumerate(x.shape) if i not in axes)
        mean, variance = F.reshape(mean, shape), F.reshape(variance, shape)
    return mean, variance


@keras_op('x', 'mean', 'variance', 'offset', 'scale', module='nn')
def batch_normalization(x: Any, mean: Any, variance: Any, axis: int, offset: Any = None,
                        scale: Any = None, epsilon: float = 1e-3) -> Any:
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset``, statistics along ``axis``."""
    x = to_float(x)
    dims = [1] * x.ndim
    dims[axis] = x.shape[axis]
    shape = tuple(dims)

    def along(v: Any) -> Any:
        v = cast(v, x.dtype)
        return F.broadcast_to(F.reshape(v, shape), x.shape)
    y = (x - along(mean)) * F.broadcast_to(F.reshape(
        F.rsqrt(cast(variance, x.dtype) + epsilon), shape), x.shape)
    if scale is not None:
        y = y * along(scale)
    if offset is not None:
        y = y + along(offset)
    return y


@keras_op('x', module='nn')
def normalize(x: Any, axis: int = -1, order: int = 2, epsilon: Optional[float] = None) -> Any:
    """``x`` divided by its ``order``-norm along ``axis`` (at least ``epsilon``)."""
    x = to_float(x)
    if x.dtype == numpy.float16:
        # In float16 squares overflow past 256, their sum past 65504, and eps ** 2 = 1e-14 is
        # 0 (a zero vector gave 0 / 0): the norm is taken in float32.
        y = normalize.impl(cast(x, numpy.float32), axis, order, epsilon)
        return cast(y, numpy.float16)
    eps = EPSILON if epsilon is None else epsilon
    if order == 2:
        norm = F.sqrt(F.maximum(F.sum(F.square(x), axis=axis, keepdims=True),
                                const(eps * eps, x, x.dtype)))
    elif order == 1:
        norm = F.maximum(F.sum(F.absolute(x), axis=axis, keepdims=True),
                         const(eps, x, x.dtype))
    else:
        raise ValueError(f'keras.ops.normalize: order must be 1 or 2, got {order!r}')
    return x / F.broadcast_to(norm, x.shape)


@keras_op('x1', 'x2', module='nn')
def psnr(x1: Any, x2: Any, max_val: float) -> Any:
    """Peak signal-to-noise ratio in dB: ``20 log10(max_val) - 10 log10(mse)``."""
    a, b = promote(x1, x2, floating=True)
    mse = F.mean(F.square(a - b))
    return 20.0 * float(numpy.log10(max_val)) - 10.0 * F.log10(mse)


@keras_op('query', 'key', 'value', 'bias', 'mask', module='nn')
def dot_product_attention(query: Any, key: Any, value: Any, bias: Any = None,
                          mask: Any = None, scale: Optional[float] = None,
                          is_causal: bool = False, flash_attention: Any = None,
                          attn_logits_soft_cap: Optional[float] = None) -> Any:
    """Scaled dot-product attention on ``(batch, length, heads, head_dim)`` tensors
    (``flash_attention`` is accepted and ignored; ``attn_logits_soft_cap`` caps the logits
    with ``cap * tanh(logits / cap)``)."""
    q, k, v = promote(query, key, value, floating=True)
    if q.ndim != 4:
        raise ValueError(f'keras.ops.dot_product_attention: expected 4-D (batch, length, '
                         f'heads, head_dim) tensors, got query shape {q.shape}')
    scale = 1.0 / float(numpy.sqrt(q.shape[-1])) if scale is None else float(scale)
    logits = F.einsum('bthd,bshd->bhts', q, k) * scale
    if attn_logits_soft_cap is not None:
        cap = float(attn_logits_soft_cap)
        logits = cap * F.tanh(logits / cap)
    if bias is not None:
        logits = logits + F.broadcast_to(cast(bias, logits.dtype), logits.shape)
    xp = logits.xp
    allowed = None
    if mask is not None:
        allowed = xp.broadcast_to(array_of(mask).astype(bool), logits.shape)
    if is_causal:
        t, s = logits.shape[-2:]
        causal = xp.broadcast_to(xp.tri(t, s, dtype=bool), logits.shape)
        allowed = causal if allowed is None else allowed & causal
    if allowed is not None:
        low = numpy.finfo(logits.dtype).min
        logits = F.where(allowed, logits, const(xp.full(logits.shape, low, logits.dtype),
                                                logits))
    weights = F.softmax(logits, axis=3)
    return F.einsum('bhts,bshd->bthd', weights, v)


# -- convolution and pooling ---------------------------------------------------------------

def _conv_setup(inputs: Any, kernel: Any, strides: Any, padding: str, data_format: Any,
                dilation_rate: Any, name: str) -> tuple:
    x, w = promote(inputs, kernel, floating=True)
    rank = x.ndim - 2
    if rank < 1 or w.ndim != rank + 2:
        raise ValueError(f'keras.ops.{name}: expected inputs of rank >= 3 and a kernel of rank '
                         f'inputs.ndim, got shapes {x.shape} and {w.shape}')
    where = f'keras.ops.{name}'
    strides = normalize_tuple(strides, rank, 'strides', where)
    dilation = normalize_tuple(dilation_rate, rank, 'dilation_rate', where)
    padding = normalize_padding(padding, where, ('valid', 'same', 'causal'))
    fmt = normalize_data_format(data_format, where)
    return x, w, rank, strides, dilation, padding, fmt


def _pads(spatial: tuple, ksize: tuple, strides: tuple, dilation: tuple, padding: str) -> list:
    if padding == 'valid':
        return [(0, 0)] * len(spatial)
    if padding == 'causal':
        return [((k - 1) * d, 0) for k, d in zip(ksize, dilation)]
    return [same_padding(n, k, s, d) for n, k, s, d in zip(spatial, ksize, strides, dilation)]


def _convolve(x: Any, W: Any, strides: tuple, dilation: tuple, padding: str, fmt: str,
              groups: int) -> Any:
    x = to_channels_first(x, fmt)
    ksize = tuple(W.shape[2:])
    x, pad = spatial_padding(x, _pads(tuple(x.shape[2:]), ksize, strides, dilation, padding))
    y = F.convolution_nd(x, W, None, stride=strides, pad=pad, cover_all=False, dilate=dilation,
                         groups=groups)
    return from_channels_first(y, fmt)


@keras_op('inputs', 'kernel', module='nn')
def conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = 'valid',
         data_format: Optional[str] = None, dilation_rate: Any = 1) -> Any:
    """N-D convolution; ``kernel`` is ``(*kernel_size, in_channels / groups, filters)``."""
    x, w, rank, strides, dilation, padding, fmt = _conv_setup(
        inputs, kernel, strides, padding, data_format, dilation_rate, 'conv')
    channels = x.shape[-1 if fmt == 'channels_last' else 1]
    if channels % w.shape[-2]:
        raise ValueError(f'keras.ops.conv: the input channels ({channels}) must be a multiple '
                         f"of the kernel's input channels ({w.shape[-2]})")
    W = F.transpose(w, (rank + 1, rank) + tuple(range(rank)))
    return _convolve(x, W, strides, dilation, padding, fmt, channels // w.shape[-2])


@keras_op('inputs', 'kernel', module='nn')
def depthwise_conv(inputs: Any, kernel: Any, strides: Any = 1, padding: str = 'valid',
                   data_format: Optional[str] = None, dilation_rate: Any = 1) -> Any:
    """Depthwise convolution; ``kernel`` is ``(*kernel_size, in_channels, multiplier)``."""
    x, w, rank, strides, dilation, padding, fmt = _conv_setup(
        inputs, kernel, strides, padding, data_format, dilation_rate, 'depthwise_conv')
    channels, mult = w.shape[-2], w.shape[-1]
    ksize = tuple(w.shape[:rank])
    W = F.reshape(w, ksize + (1, channels * mult))
    W = F.transpose(W, (rank + 1, rank) + tuple(range(rank)))
    return _convolve(x, W, strides, dilation, padding, fmt, channels)


@keras_op('inputs', 'depthwise_kernel', 'pointwise_kernel', module='nn')
def separable_conv(inputs: Any, depthwise_kernel: Any, pointwise_kernel: Any, strides: Any = 1,
                   padding: str = 'valid', data_format: Optional[str] = None,
                   dilation_rate: Any = 1) -> Any:
    """A depthwise convolution followed by a 1x1 convolution with ``pointwise_kernel``."""
    y = depthwise_conv.impl(inputs, depthwise_kernel, strides, padding, data_format,
                            dilation_rate)
    return conv.impl(y, pointwise_kernel, 1, 'valid', data_format, 1)


@keras_op('inputs', 'kernel', module='nn')
def conv_transpose(inputs: Any, kernel: Any, strides: Any = 1, padding: str = 'valid',
                   output_padding: Any = None, data_format: Optional[str] = None,
                   dilation_rate: Any = 1) -> Any:
    """Transposed convolution; ``kernel`` is ``(*kernel_size, filters, in_channels)``. Output
    lengths follow Keras: ``l * s + max(k - s, 0)`` ('valid'), ``l * s`` ('same'), or
    ``(l - 1) * s + k - 2 * pad + output_padding`` when ``output_padding`` is given."""
    x, w, rank, strides, dilation, padding, fmt = _conv_setup(
        inputs, kernel, strides, padding, data_format, dilation_rate, 'conv_transpose')
    if padding == 'causal':
        raise ValueError("keras.ops.conv_transpose: padding must be 'valid' or 'same', got "
                         "'causal'")
    out_pad = (None,) * rank if output_padding is None else normalize_tuple(
        output_padding, rank, 'output_padding', 'keras.ops.conv_transpose', allow_zero=True)
    xc = to_channels_first(x, fmt)
    W = F.transpose(w, (rank + 1, rank) + tuple(range(rank)))  # (in, out, *k)
    full = F.deconvolution_nd(xc, W, None, stride=strides, dilate=dilation)
    ksize = tuple(w.shape[:rank])
    slices, extend = [slice(None), slice(None)], [(0, 0), (0, 0)]
    for length, full_len, k, st, d, p in zip(xc.shape[2:], full.shape[2:], ksize, strides,
                                             dilation, out_pad):
        target = transpose_output_length(length, k, padding, st, d, p)
        before = max(full_len - target, 0) // 2 if padding == 'same' else 0
        stop = min(before + target, full_len)
        slices.append(slice(before, stop))
        extend.append((0, target - (stop - before)))
    y = full[tuple(slices)]
    if any(after for _, after in extend):
        y = F.pad(y, tuple(extend))
    return from_channels_first(y, fmt)


def _pool(inputs: Any, pool_size: Any, strides: Any, padding: str, data_format: Any,
          mode: str) -> Any:
    x = to_float(inputs)
    rank = x.ndim - 2
    where = f'keras.ops.{mode}_pool'
    ksize = normalize_tuple(pool_size, rank, 'pool_size', where)
    stride = ksize if strides is None else normalize_tuple(strides, rank, 'strides', where)
    padding = normalize_padding(padding, where)
    fmt = normalize_data_format(data_format, where)
    x = to_channels_first(x, fmt)
    spatial = tuple(x.shape[2:])
    pads = [(0, 0)] * rank if padding == 'valid' else \
        [same_padding(n, k, s) for n, k, s in zip(spatial, ksize, stride)]
    if mode == 'max':
        low = float(numpy.finfo(x.dtype).min)
        x, pad = spatial_padding(x, pads, value=low)
        y = F.max_pooling_nd(x, ksize, stride, pad, cover_all=False)
    else:
        padded, pad = spatial_padding(x, pads)
        y = F.average_pooling_nd(padded, ksize, stride, pad, pad_value=None)
        if padded is not x:  # explicit zeros were averaged in: rescale by window / real cells
            xp = y.xp
            ones = xp.ones((1, 1) + spatial, x.dtype)
            real = F.average_pooling_nd(xp.pad(ones, ((0, 0), (0, 0)) + tuple(pads)), ksize,
                                        stride).array
            y = y * (1 / real).astype(x.dtype)
    return from_channels_first(y, fmt)


@keras_op('inputs', module='nn')
def max_pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = 'valid',
             data_format: Optional[str] = None) -> Any:
    """Max pooling over windows of ``pool_size`` (``'same'`` padding never wins a max)."""
    return _pool(inputs, pool_size, strides, padding, data_format, 'max')


@keras_op('inputs', module='nn')
def average_pool(inputs: Any, pool_size: Any, strides: Any = None, padding: str = 'valid',
                 data_format: Optional[str] = None) -> Any:
    """Average pooling over windows of ``pool_size`` (padded cells are not counted)."""
    return _pool(inputs, pool_size, strides, padding, data_format, 'average')


# -- more activations and normalizations --------------------------------------------------

sparse_sigmoid = _act('sparse_sigmoid', lambda x: F.clip((x + 1.0) / 2.0, 0.0, 1.0),
                      '0 below -1, 1 above 1, ``(x + 1) / 2`` between.')
polar = _act('polar', lambda x: F.tanh(x / 2.0), '``tanh(x / 2)``.')


@keras_op('x', module='nn')
def threshold(x: Any, threshold: float, default_value: float) -> Any:
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = to_float(x)
    keep = x.array > threshold
    return F.where(keep, x, const(x.xp.full(x.shape, default_value, x.dtype), x))


@keras_op('x', module='nn')
def sparsemax(x: Any, axis: int = -1) -> Any:
    """Sparsemax: the Euclidean projection of ``x`` onto the probability simplex along
    ``axis`` (sparse probabilities)."""
    x = to_float(x)
    axis %= x.ndim
    xp = x.xp
    a = xp.moveaxis(x.array, axis, -1)
    z = -xp.sort(-a, axis=-1)
    k = xp.arange(1, a.shape[-1] + 1, dtype=a.dtype)
    cumsum = xp.cumsum(z, axis=-1)
    support = (1 + k * z) > cumsum
    k_max = support.sum(axis=-1, keepdims=True)
    tau = (xp.take_along_axis(cumsum, k_max - 1, axis=-1) - 1) / k_max.astype(a.dtype)
    tau = xp.moveaxis(tau, -1, axis)
    inside = x.array > tau
    # On the support the output is x - tau(x); tau is the mean of x over the support minus a
    # constant, so the gradient is the identity minus the support mean (written with F).
    mask = inside.astype(x.dtype)
    count = mask.sum(axis=axis, keepdims=True)
    tau_var = (F.sum(x * mask, axis=axis, keepdims=True) - 1.0) / count
    return (x - F.broadcast_to(tau_var, x.shape)) * mask


@keras_op('x', 'gamma', 'beta', module='nn')
def layer_normalization(x: Any, gamma: Any = None, beta: Any = None, axis: Any = -1,
                        epsilon: Optional[float] = None, **kwargs: Any) -> Any:
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` with statistics over ``axis``."""
    x = to_float(x)
    eps = EPSILON if epsilon is None else float(epsilon)
    axes = axis_tuple(axis, x.ndim)
    mean = F.broadcast_to(F.mean(x, axis=axes, keepdims=True), x.shape)
    centered = x - mean
    var = F.mean(F.square(centered), axis=axes, keepdims=True)
    y = centered * F.broadcast_to(F.rsqrt(var + eps), x.shape)
    if gamma is not None:
        y = y * F.broadcast_to(cast(gamma, x.dtype), x.shape)
    if beta is not None:
        y = y + F.broadcast_to(cast(beta, x.dtype), x.shape)
    return y


@keras_op('x', 'scale', module='nn')
def rms_normalization(x: Any, scale: Any = 1, axis: Any = -1,
                      epsilon: Optional[float] = None) -> Any:
    """``x / sqrt(mean(x^2) + epsilon) * scale`` with the mean over ``axis``."""
    x = to_float(x)
    eps = EPSILON if epsilon is None else float(epsilon)
    axes = axis_tuple(axis, x.ndim)
    ms = F.mean(F.square(x), axis=axes, keepdims=True)
    y = x * F.broadcast_to(F.rsqrt(ms + eps), x.shape)
    if isinstance(scale, (int, float)):
        return y * float(scale) if scale != 1 else y
    return y * F.broadcast_to(cast(scale, x.dtype), x.shape)


@keras_op('x', module='nn')
def depth_to_space(x: Any, block_size: int, data_format: str = 'channels_last') -> Any:
    """Move channel blocks into ``block_size x block_size`` spatial tiles (TensorFlow's
    ordering)."""
    fmt = normalize_data_format(data_format, 'keras.ops.depth_to_space')
    x = F.transpose(x, (0, 2, 3, 1)) if fmt == 'channels_first' else x
    n, h, w, c = x.shape
    b = int(block_size)
    if c % (b * b):
        raise ValueError(f'keras.ops.depth_to_space: channels ({c}) must be divisible by '
                         f'block_size^2 ({b * b})')
    y = F.reshape(x, (n, h, w, b, b, c // (b * b)))
    y = F.reshape(F.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h * b, w * b, c // (b * b)))
    return F.transpose(y, (0, 3, 1, 2)) if fmt == 'channels_first' else y


@keras_op('x', module='nn')
def space_to_depth(x: Any, block_size: int, data_format: str = 'channels_last') -> Any:
    """Move ``block_size x block_size`` spatial tiles into channels (inverse of
    ``depth_to_space``)."""
    fmt = normalize_data_format(data_format, 'keras.ops.space_to_depth')
    x = F.transpose(x, (0, 2, 3, 1)) if fmt == 'channels_first' else x
    n, h, w, c = x.shape
    b = int(block_size)
    if h % b or w % b:
        raise ValueError(f'keras.ops.space_to_depth: height and width ({h}, {w}) must be '
                         f'divisible by block_size ({b})')
    y = F.reshape(x, (n, h // b, b, w // b, b, c))
    y = F.reshape(F.transpose(y, (0, 1, 3, 2, 4, 5)), (n, h // b, w // b, b * b * c))
    return F.transpose(y, (0, 3, 1, 2)) if fmt == 'channels_first' else y


@keras_op('input', module='nn')
def unfold(input: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Any:
    """PyTorch's ``unfold`` on ``(N, C, H, W)``: sliding blocks as columns,
    ``(N, C * kh * kw, L)``."""
    x = to_float(input)
    cols = F.im2col(x, kernel_size, stride, padding, cover_all=False, dilate=dilation)
    return F.reshape(cols, (cols.shape[0], cols.shape[1], -1))


def _adaptive(inputs: Any, output_size: Any, data_format: Any, mode: str) -> Any:
    x = to_float(inputs)
    rank = x.ndim - 2
    where = f'keras.ops.adaptive_{mode}_pool'
    sizes = normalize_tuple(output_size, rank, 'output_size', where)
    fmt = normalize_data_format(data_format, where)
    x = to_channels_first(x, fmt)
    reduce = F.max if mode == 'max' else F.mean
    for axis, out in zip(range(2, 2 + rank), sizes):
        length = x.shape[axis]
        pieces = []
        for i in range(out):
            lo, hi = (i * length) // out, -((-(i + 1) * length) // out)
            key = (slice(None),) * axis + (slice(lo, hi),)
            pieces.append(reduce(x[key], axis=axis, keepdims=True))
        x = F.concat(pieces, axis=axis)
    return from_channels_first(x, fmt)


@keras_op('inputs', module='nn')
def adaptive_average_pool(inputs: Any, output_size: Any,
                          data_format: Optional[str] = None) -> Any:
    """Average pooling to a fixed ``output_size`` (PyTorch's bins)."""
    return _adaptive(inputs, output_size, data_format, 'average')


@keras_op('inputs', module='nn')
def adaptive_max_pool(inputs: Any, output_size: Any, data_format: Optional[str] = None) -> Any:
    """Max pooling to a fixed ``output_size`` (PyTorch's bins)."""
    return _adaptive(inputs, output_size, data_format, 'max')


@keras_op('target', 'output', 'target_length', 'output_length', module='nn')
def ctc_loss(target: Any, output: Any, target_length: Any, output_length: Any,
             mask_index: int = 0) -> Any:
    """Connectionist temporal classification loss per sample; ``output`` holds logits
    ``(batch, time, classes)``, ``mask_index`` is the blank class."""
    y = to_float(output)
    steps = F.separate(F.transpose(y, (1, 0, 2)), 0)
    labels = target.array.astype('int32')
    return F.connectionist_temporal_classification(
        list(steps), labels, int(mask_index), output_length.array.astype('int32'),
        target_length.array.astype('int32'), reduce='no')


@keras_op('inputs', 'sequence_lengths', module='nn')
def ctc_decode(inputs: Any, sequence_lengths: Any, strategy: str = 'greedy',
               beam_width: int = 100, top_paths: int = 1, merge_repeated: bool = True,
               mask_index: int = 0) -> Any:
    """Greedy CTC decoding of logits ``(batch, time, classes)``: ``(decoded, scores)`` with
    ``decoded`` of shape ``(1, batch, time)`` (labels first, then -1) and ``scores`` of shape
    ``(batch, 1)``, the negated sum of the chosen log-probabilities. No gradient."""
    if strategy != 'greedy':
        raise ValueError(f"keras.ops.ctc_decode: only strategy='greedy' is supported, got "
                         f'{strategy!r}')
    xp = inputs.xp
    logp = F.log_softmax(to_float(inputs), axis=2).array
    batch, steps = logp.shape[:2]
    best = logp.argmax(axis=-1)
    score = logp.max(axis=-1)
    beyond = xp.arange(steps)[None, :] >= sequence_lengths.array.reshape(-1, 1)
    best = xp.where(beyond, mask_index, best)
    score = xp.where(beyond, 0, score)
    if merge_repeated:
        repeated = xp.zeros(best.shape, bool)
        repeated[:, 1:] = best[:, 1:] == best[:, :-1]
        best = xp.where(repeated, mask_index, best)
    blank = best == mask_index
    order = xp.argsort(xp.where(blank, steps, xp.arange(steps)[None, :]), axis=-1,
                       kind='stable')
    decoded = xp.take_along_axis(xp.where(blank, -1, best), order, axis=-1)
    return decoded[None].astype('int32'), (-score.sum(axis=1, keepdims=True)).astype(logp.dtype)


__all__ = sorted(n for n, v in dict(globals()).items()
                 if not n.startswith('_') and callable(v) and hasattr(v, 'op_name'))
__all__ = sorted(set(__all__) | {'swish', 'hard_swish'})
