"""Every keras.ops op against a NumPy reference, on arrays, on Variables and on KerasTensors.

Each case runs on plain arrays (the result must be arrays), on chainlet Variables (the result
must be Variables with the same values), symbolically inside a functional ``keras.Model``
replayed on the same arrays, and (marked ``gpu``) on CuPy arrays.
"""
import math

import numpy as np
import pytest

import chainlet
from chainlet import keras
from chainlet.keras import ops

R = np.random.RandomState(0)
# numpy.trapezoid is NumPy 2's name; NumPy 1.24 (the oldest supported) has only trapz.
_np_trapezoid = getattr(np, 'trapezoid', None) or getattr(np, 'trapz')


def sym(*shape, dtype='float32'):
    return R.uniform(-2, 2, shape).astype(dtype)


def pos(*shape, dtype='float32'):
    return R.uniform(0.5, 2, shape).astype(dtype)


def unit(*shape):
    return R.uniform(-0.9, 0.9, shape).astype('float32')


def ints(*shape, high=5):
    return R.randint(0, high, shape).astype('int32')


def spd(n, batch=()):
    a = R.uniform(-1, 1, batch + (n, n))
    return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype('float32')


def _erf(x):
    return np.vectorize(math.erf)(x)


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _conv2d_ref(x, w, stride=1, pad=((0, 0), (0, 0))):
    x = np.pad(x, ((0, 0),) + pad + ((0, 0),))
    kh, kw, _, co = w.shape
    n, h, wd, _ = x.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, oh, ow, co))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw, :]
            out[:, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [0, 1, 2]))
    return out


def _depthwise_ref(x, w):
    kh, kw, c, m = w.shape
    out = [_conv2d_ref(x[..., i:i + 1], w[:, :, i:i + 1, :]) for i in range(c)]
    return np.concatenate(out, axis=-1)


def _pool_ref(x, k, mode):
    n, h, w, c = x.shape
    out = np.zeros((n, h // k, w // k, c))
    for i in range(h // k):
        for j in range(w // k):
            win = x[:, i * k:(i + 1) * k, j * k:(j + 1) * k, :]
            out[:, i, j] = win.max(axis=(1, 2)) if mode == 'max' else win.mean(axis=(1, 2))
    return out


def _take_along(x, idx, axis):
    return np.take_along_axis(x, idx, axis)


def _segment_sum(d, ids, n):
    out = np.zeros((n,) + d.shape[1:])
    np.add.at(out, ids, d)
    return out


def _segment_max(d, ids, n):
    out = np.full((n,) + d.shape[1:], -np.inf)
    np.maximum.at(out, ids, d)
    return out


def _top_k(x, k):
    idx = np.argsort(-x, axis=-1, kind='stable')[..., :k]
    return np.take_along_axis(x, idx, -1), idx


def _bce(t, y):
    y = np.clip(y, 1e-7, 1 - 1e-7)
    return -(t * np.log(y) + (1 - t) * np.log(1 - y))


def _attention(q, k, v, mask=None, cap=None):
    logits = np.einsum('bthd,bshd->bhts', q, k) / np.sqrt(q.shape[-1])
    if cap is not None:
        logits = cap * np.tanh(logits / cap)
    if mask is not None:
        logits = np.where(mask, logits, -1e30)
    return np.einsum('bhts,bshd->bthd', _softmax(logits, -1), v)


def _extract_patches(x, k):
    n, h, w, c = x.shape
    out = np.zeros((n, h // k, w // k, k * k * c))
    for i in range(h // k):
        for j in range(w // k):
            out[:, i, j] = x[:, i * k:(i + 1) * k, j * k:(j + 1) * k, :].reshape(n, -1)
    return out


def _sparsemax(x):
    z = -np.sort(-x, axis=-1)
    k = np.arange(1, x.shape[-1] + 1)
    cs = np.cumsum(z, axis=-1)
    kmax = ((1 + k * z) > cs).sum(axis=-1, keepdims=True)
    tau = (np.take_along_axis(cs, kmax - 1, -1) - 1) / kmax
    return np.maximum(x - tau, 0)


def _depth_to_space(x, b):
    n, h, w, c = x.shape
    out = np.zeros((n, h * b, w * b, c // (b * b)))
    for i in range(h * b):
        for j in range(w * b):
            block = ((i % b) * b + j % b) * (c // (b * b))
            out[:, i, j] = x[:, i // b, j // b, block:block + c // (b * b)]
    return out


def _unfold(x, k):
    n, c, h, w = x.shape
    cols = [x[:, :, i:i + k, j:j + k].reshape(n, -1) for i in range(h - k + 1)
            for j in range(w - k + 1)]
    return np.stack(cols, axis=-1)


def _conv_transpose_ref(x, w, strides=1, padding='valid', output_padding=None):
    n, h, wd, c = x.shape
    k, s = w.shape[0], strides
    full = np.zeros((n, (h - 1) * s + k, (wd - 1) * s + k, w.shape[2]))
    for i in range(h):
        for j in range(wd):
            full[:, i * s:i * s + k, j * s:j * s + k] += np.einsum('nc,aboc->nabo', x[:, i, j], w)
    if output_padding is None:
        target = h * s + max(k - s, 0) if padding == 'valid' else h * s
    else:
        target = (h - 1) * s + k - 2 * (k // 2 if padding == 'same' else 0) + output_padding
    before = max(full.shape[1] - target, 0) // 2 if padding == 'same' else 0
    out = full[:, before:before + target, before:before + target]
    extra = target - out.shape[1]
    return np.pad(out, ((0, 0), (0, extra), (0, extra), (0, 0)))


def _stft_ref(x, sequence_length, sequence_stride, fft_length):
    half = fft_length // 2
    padded = np.pad(x, ((0, 0), (half, half)), mode='reflect')
    n = np.arange(sequence_length)
    left = (fft_length - sequence_length) // 2
    w = np.pad(0.5 - 0.5 * np.cos(2 * np.pi * n / sequence_length),
               (left, fft_length - sequence_length - left))
    starts = range(0, padded.shape[1] - fft_length + 1, sequence_stride)
    frames = np.stack([padded[:, s:s + fft_length] for s in starts], 1)
    spec = np.fft.rfft(frames * w, fft_length)
    return spec.real, spec.imag


def _adaptive_average(x, size):
    (h, w), (oh, ow) = x.shape[1:3], size
    rows = [(i * h // oh, -(-(i + 1) * h // oh)) for i in range(oh)]
    cols = [(j * w // ow, -(-(j + 1) * w // ow)) for j in range(ow)]
    return np.stack([np.stack([x[:, r0:r1, c0:c1].mean(axis=(1, 2)) for c0, c1 in cols], 1)
                     for r0, r1 in rows], 1)


def _hsv(x):
    import colorsys
    return np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)


def _gaussian_blur(x, k, sigma):
    t = np.arange(k) - (k - 1) / 2
    w = np.exp(-0.5 * (t / sigma) ** 2)
    w = np.outer(w, w) / w.sum() ** 2
    p = k // 2
    xp = np.pad(x, ((0, 0), (p, p), (p, p), (0, 0)))
    out = np.zeros_like(x, dtype='float64')
    for i in range(x.shape[1]):
        for j in range(x.shape[2]):
            out[:, i, j] = np.einsum('nhwc,hw->nc', xp[:, i:i + k, j:j + k], w)
    return out


A, B = sym(3, 4), sym(3, 4)
P = pos(3, 4)
V = sym(4)
M = sym(4, 5)
BATCH = sym(2, 3, 4)
IDX = np.array([[0, 3], [1, 1], [2, 0]], 'int32')
IMG = sym(2, 4, 4, 3)
KER = sym(3, 3, 3, 5)
SPD = spd(3, (2,))
SEG = np.array([0, 0, 2, 1, 2], 'int32')
LOGITS = sym(3, 5)
ONEHOT = np.eye(5, dtype='float32')[[1, 0, 4]]
Q, K, VV = sym(2, 3, 2, 4), sym(2, 5, 2, 4), sym(2, 5, 2, 4)
D2S = sym(2, 2, 3, 8)

# (id, op, args, kwargs, reference(*args, **kwargs))
CASES = [
    ('add', 'add', (A, B), {}, np.add),
    ('add_scalar', 'add', (A, 2.0), {}, np.add),
    ('add_broadcast', 'add', (A, V), {}, np.add),
    ('subtract', 'subtract', (A, B), {}, np.subtract),
    ('multiply', 'multiply', (A, B), {}, np.multiply),
    ('divide', 'divide', (A, P), {}, np.divide),
    ('true_divide', 'true_divide', (A, P), {}, np.divide),
    ('divide_no_nan', 'divide_no_nan', (A, np.where(B > 0, B, 0).astype('f')), {},
     lambda a, b: np.where(b == 0, 0, a / np.where(b == 0, 1, b))),
    ('power', 'power', (P, 1.5), {}, np.power),
    ('power_tensor', 'power', (P, A), {}, np.power),
    ('maximum', 'maximum', (A, B), {}, np.maximum),
    ('minimum', 'minimum', (A, 0.5), {}, np.minimum),
    ('floor_divide', 'floor_divide', (A, P), {}, np.floor_divide),
    ('mod', 'mod', (A, P), {}, np.mod),
    ('arctan2', 'arctan2', (A, B), {}, np.arctan2),
    ('logaddexp', 'logaddexp', (A, B), {}, np.logaddexp),
    ('negative', 'negative', (A,), {}, np.negative),
    ('reciprocal', 'reciprocal', (P,), {}, np.reciprocal),
    ('square', 'square', (A,), {}, np.square),
    ('abs', 'abs', (A,), {}, np.abs),
    ('absolute', 'absolute', (A,), {}, np.abs),
    ('sqrt', 'sqrt', (P,), {}, np.sqrt),
    ('exp', 'exp', (A,), {}, np.exp),
    ('exp2', 'exp2', (A,), {}, np.exp2),
    ('expm1', 'expm1', (A,), {}, np.expm1),
    ('log', 'log', (P,), {}, np.log),
    ('log2', 'log2', (P,), {}, np.log2),
    ('log10', 'log10', (P,), {}, np.log10),
    ('log1p', 'log1p', (P,), {}, np.log1p),
    ('sin', 'sin', (A,), {}, np.sin),
    ('cos', 'cos', (A,), {}, np.cos),
    ('tan', 'tan', (unit(3, 4),), {}, np.tan),
    ('arcsin', 'arcsin', (unit(3, 4),), {}, np.arcsin),
    ('arccos', 'arccos', (unit(3, 4),), {}, np.arccos),
    ('arctan', 'arctan', (A,), {}, np.arctan),
    ('sinh', 'sinh', (A,), {}, np.sinh),
    ('cosh', 'cosh', (A,), {}, np.cosh),
    ('tanh', 'tanh', (A,), {}, np.tanh),
    ('arcsinh', 'arcsinh', (A,), {}, np.arcsinh),
    ('arccosh', 'arccosh', (P + 1,), {}, np.arccosh),
    ('arctanh', 'arctanh', (unit(3, 4),), {}, np.arctanh),
    ('sign', 'sign', (A,), {}, np.sign),
    ('floor', 'floor', (A,), {}, np.floor),
    ('ceil', 'ceil', (A,), {}, np.ceil),
    ('trunc', 'trunc', (A,), {}, np.trunc),
    ('round', 'round', (A,), {'decimals': 1}, np.round),
    ('clip', 'clip', (A, -0.5, 0.5), {}, np.clip),
    ('nan_to_num', 'nan_to_num', (np.array([1.0, np.nan, np.inf, -np.inf], 'f'),), {},
     np.nan_to_num),
    ('equal', 'equal', (A, A * (B > 0)), {}, np.equal),
    ('not_equal', 'not_equal', (A, A * (B > 0)), {}, np.not_equal),
    ('less', 'less', (A, B), {}, np.less),
    ('less_equal', 'less_equal', (A, B), {}, np.less_equal),
    ('greater', 'greater', (A, B), {}, np.greater),
    ('greater_equal', 'greater_equal', (A, 0.0), {}, np.greater_equal),
    ('logical_and', 'logical_and', (A > 0, B > 0), {}, np.logical_and),
    ('logical_or', 'logical_or', (A > 0, B > 0), {}, np.logical_or),
    ('logical_xor', 'logical_xor', (A > 0, B > 0), {}, np.logical_xor),
    ('logical_not', 'logical_not', (A > 0,), {}, np.logical_not),
    ('isnan', 'isnan', (np.array([1.0, np.nan], 'f'),), {}, np.isnan),
    ('isinf', 'isinf', (np.array([1.0, np.inf], 'f'),), {}, np.isinf),
    ('isfinite', 'isfinite', (np.array([1.0, np.inf], 'f'),), {}, np.isfinite),
    ('isclose', 'isclose', (A, A + 1e-9), {}, np.isclose),
    ('any', 'any', (A > 1,), {'axis': 1}, np.any),
    ('all', 'all', (A > -1.5,), {'axis': 0, 'keepdims': True}, np.all),
    ('count_nonzero', 'count_nonzero', (A > 0,), {'axis': 1}, np.count_nonzero),
    ('sum', 'sum', (A,), {}, np.sum),
    ('sum_axis', 'sum', (BATCH,), {'axis': (0, 2), 'keepdims': True}, np.sum),
    ('sum_int', 'sum', (IDX,), {'axis': 0}, np.sum),
    ('prod', 'prod', (A,), {'axis': 1}, np.prod),
    ('mean', 'mean', (BATCH,), {'axis': -1}, np.mean),
    ('mean_int', 'mean', (IDX,), {}, np.mean),
    ('var', 'var', (A,), {'axis': 0}, np.var),
    ('std', 'std', (A,), {}, np.std),
    ('max', 'max', (A,), {'axis': 1}, np.max),
    ('max_int', 'max', (IDX,), {}, np.max),
    ('amax', 'amax', (A,), {'axis': 0, 'keepdims': True}, np.amax),
    ('min', 'min', (BATCH,), {'axis': (1, 2)}, np.min),
    ('amin', 'amin', (A,), {}, np.amin),
    ('argmax', 'argmax', (A,), {'axis': 1}, np.argmax),
    ('argmax_flat', 'argmax', (A,), {}, np.argmax),
    ('argmin', 'argmin', (A,), {'axis': 0, 'keepdims': True}, np.argmin),
    ('average', 'average', (A,), {'axis': 1, 'weights': pos(4)}, np.average),
    ('cumsum', 'cumsum', (A,), {'axis': 1}, np.cumsum),
    ('cumsum_flat', 'cumsum', (A,), {}, np.cumsum),
    ('cumprod', 'cumprod', (P,), {'axis': 0}, np.cumprod),
    ('diff', 'diff', (A,), {'n': 2, 'axis': 1}, np.diff),
    ('matmul', 'matmul', (A, M), {}, np.matmul),
    ('matmul_batch', 'matmul', (BATCH, M), {}, np.matmul),
    ('matmul_vector', 'matmul', (A, V), {}, np.matmul),
    ('dot', 'dot', (A, M), {}, np.dot),
    ('dot_vectors', 'dot', (V, V), {}, np.dot),
    ('dot_nd', 'dot', (BATCH, sym(3, 4, 2)), {}, np.dot),
    ('tensordot', 'tensordot', (BATCH, sym(4, 2)), {'axes': 1}, np.tensordot),
    ('outer', 'outer', (V, sym(3)), {}, np.outer),
    ('inner', 'inner', (A, B), {}, np.inner),
    ('vdot', 'vdot', (A, B), {}, np.vdot),
    ('cross', 'cross', (sym(4, 3), sym(4, 3)), {}, np.cross),
    ('einsum', 'einsum', ('ij,jk->ik', A, M), {}, np.einsum),
    ('reshape', 'reshape', (A, (2, -1)), {}, np.reshape),
    ('ravel', 'ravel', (A,), {}, np.ravel),
    ('transpose', 'transpose', (BATCH,), {'axes': (2, 0, 1)}, np.transpose),
    ('transpose_default', 'transpose', (A,), {}, np.transpose),
    ('moveaxis', 'moveaxis', (BATCH, 0, -1), {}, np.moveaxis),
    ('swapaxes', 'swapaxes', (BATCH, 0, 2), {}, np.swapaxes),
    ('expand_dims', 'expand_dims', (A, 1), {}, np.expand_dims),
    ('expand_dims_tuple', 'expand_dims', (A, (0, -1)), {}, np.expand_dims),
    ('squeeze', 'squeeze', (sym(3, 1, 4),), {'axis': 1}, np.squeeze),
    ('broadcast_to', 'broadcast_to', (V, (3, 4)), {}, np.broadcast_to),
    ('concatenate', 'concatenate', ([A, B],), {'axis': 1}, np.concatenate),
    ('stack', 'stack', ([A, B],), {'axis': 1}, np.stack),
    ('vstack', 'vstack', ([A, B],), {}, np.vstack),
    ('hstack', 'hstack', ([A, B],), {}, np.hstack),
    ('append', 'append', (A, B), {'axis': 0}, np.append),
    ('tile', 'tile', (A, (2, 1)), {}, np.tile),
    ('repeat', 'repeat', (A, 2), {'axis': 1}, np.repeat),
    ('flip', 'flip', (A,), {'axis': 1}, np.flip),
    ('roll', 'roll', (A, 1), {'axis': 1}, np.roll),
    ('roll_flat', 'roll', (A, -2), {}, np.roll),
    ('pad', 'pad', (A, ((1, 0), (0, 2))), {}, np.pad),
    ('pad_reflect', 'pad', (A, 1), {'mode': 'reflect'}, np.pad),
    ('take', 'take', (A, np.array([2, 0, -1], 'int32')), {'axis': 1},
     lambda x, i, axis: np.take(x, i % x.shape[axis], axis=axis)),
    ('take_flat', 'take', (A, np.array([[0, 5]], 'int32')), {}, np.take),
    ('take_along_axis', 'take_along_axis', (A, IDX), {'axis': 1}, _take_along),
    ('where', 'where', (A > 0, A, B), {}, np.where),
    ('where_scalar', 'where', (A > 0, A, 0.0), {}, np.where),
    ('sort', 'sort', (A,), {'axis': 1}, np.sort),
    ('sort_axis0', 'sort', (A,), {'axis': 0}, np.sort),
    ('argsort', 'argsort', (A,), {}, np.argsort),
    ('diagonal', 'diagonal', (BATCH,), {'offset': 1, 'axis1': 1, 'axis2': 2}, np.diagonal),
    ('trace', 'trace', (sym(4, 4),), {}, np.trace),
    ('diag_matrix', 'diag', (sym(4, 4),), {}, np.diag),
    ('diag_vector', 'diag', (V,), {'k': 1}, np.diag),
    ('diag_vector_neg', 'diag', (V,), {'k': -2}, np.diag),
    ('tril', 'tril', (BATCH,), {'k': 0}, np.tril),
    ('triu', 'triu', (A,), {'k': 1}, np.triu),
    ('zeros_like', 'zeros_like', (A,), {}, np.zeros_like),
    ('ones_like', 'ones_like', (A,), {}, np.ones_like),
    ('full_like', 'full_like', (A, 3.0), {}, np.full_like),
    ('copy', 'copy', (A,), {}, np.copy),
    ('array', 'array', (A,), {'dtype': 'float64'}, lambda x, dtype: x.astype(dtype)),
    ('get_item', 'get_item', (BATCH, (slice(None), 1, slice(0, 3, 2))), {}, lambda x, k: x[k]),
    ('nonzero', 'nonzero', (A > 0,), {}, np.nonzero),
    ('median', 'median', (A,), {'axis': 1}, np.median),
    ('quantile', 'quantile', (A, 0.3), {'axis': 0}, np.quantile),
    ('bincount', 'bincount', (np.array([0, 1, 1, 3], 'int32'),), {}, np.bincount),
    ('digitize', 'digitize', (A, np.array([-1.0, 0.0, 1.0], 'f')), {}, np.digitize),
    ('select', 'select', ([A > 1, A < -1], [A, B]), {}, np.select),
    # less common NumPy ops
    ('cbrt', 'cbrt', (A,), {}, np.cbrt),
    ('deg2rad', 'deg2rad', (A,), {}, np.deg2rad),
    ('signbit', 'signbit', (A,), {}, np.signbit),
    ('hypot', 'hypot', (A, B), {}, np.hypot),
    ('logaddexp2', 'logaddexp2', (A, B), {}, np.logaddexp2),
    ('heaviside', 'heaviside', (np.round(A), 0.5), {}, np.heaviside),
    ('gcd', 'gcd', (IDX * 6, np.int32(4)), {}, np.gcd),
    ('lcm', 'lcm', (IDX + 1, 4), {}, np.lcm),
    ('bitwise_and', 'bitwise_and', (IDX, 3), {}, np.bitwise_and),
    ('bitwise_or', 'bitwise_or', (IDX, IDX + 2), {}, np.bitwise_or),
    ('bitwise_xor', 'bitwise_xor', (IDX, 1), {}, np.bitwise_xor),
    ('bitwise_invert', 'bitwise_invert', (IDX,), {}, np.invert),
    ('left_shift', 'left_shift', (IDX, 2), {}, np.left_shift),
    ('right_shift', 'right_shift', (IDX * 8, 2), {}, np.right_shift),
    ('ldexp', 'ldexp', (A, IDX[:, :1] + np.zeros((3, 4), 'int32')), {}, np.ldexp),
    ('nextafter', 'nextafter', (A, B), {}, np.nextafter),
    ('real', 'real', (A,), {}, np.real),
    ('imag', 'imag', (A,), {}, np.imag),
    ('conj', 'conj', (A,), {}, np.conj),
    ('angle', 'angle', (A,), {}, np.angle),
    ('isreal', 'isreal', (A,), {}, np.isreal),
    ('isposinf', 'isposinf', (np.array([1.0, np.inf, -np.inf], 'f'),), {}, np.isposinf),
    ('isneginf', 'isneginf', (np.array([1.0, np.inf, -np.inf], 'f'),), {}, np.isneginf),
    ('isin', 'isin', (IDX, np.array([1, 3], 'int32')), {}, np.isin),
    ('nansum', 'nansum', (np.where(A > 1, np.nan, A).astype('f'),), {'axis': 1}, np.nansum),
    ('nanprod', 'nanprod', (np.where(A > 1, np.nan, A).astype('f'),), {}, np.nanprod),
    ('nanmax', 'nanmax', (np.where(A > 1, np.nan, A).astype('f'),), {'axis': 0}, np.nanmax),
    ('nanmin', 'nanmin', (np.where(A > 1, np.nan, A).astype('f'),), {}, np.nanmin),
    ('nanmean', 'nanmean', (np.where(A > 1, np.nan, A).astype('f'),), {'axis': 1},
     np.nanmean),
    ('ptp', 'ptp', (A,), {'axis': 1}, np.ptp),
    ('array_split', 'array_split', (sym(5, 2), 3), {}, np.array_split),
    ('vsplit', 'vsplit', (sym(4, 2), 2), {}, np.vsplit),
    ('hsplit', 'hsplit', (A, [1, 3]), {}, np.hsplit),
    ('dstack', 'dstack', ([A, B],), {}, np.dstack),
    ('empty_like', 'empty_like', (A,), {}, np.zeros_like),
    ('diagflat', 'diagflat', (sym(2, 2),), {'k': 1}, np.diagflat),
    ('rot90', 'rot90', (BATCH,), {'k': 3, 'axes': (1, 2)}, np.rot90),
    ('kron', 'kron', (sym(2, 3), sym(3, 2)), {}, np.kron),
    ('correlate_valid', 'correlate', (sym(6), sym(3)), {}, np.correlate),
    ('correlate_same', 'correlate', (sym(6), sym(4)), {'mode': 'same'}, np.correlate),
    ('correlate_full', 'correlate', (sym(3), sym(5)), {'mode': 'full'}, np.correlate),
    ('corrcoef', 'corrcoef', (A,), {}, np.corrcoef),
    ('trapezoid', 'trapezoid', (A,), {'dx': 0.5}, lambda y, dx: _np_trapezoid(y, dx=dx)),
    ('trapezoid_x', 'trapezoid', (A, np.array([0.0, 0.5, 2.0, 2.5], 'f')), {},
     lambda y, x: _np_trapezoid(y, x)),
    ('searchsorted', 'searchsorted', (np.array([0.0, 1.0, 2.0], 'f'), V), {'side': 'right'},
     np.searchsorted),
    ('unravel_index', 'unravel_index', (np.array([0, 5, 11], 'int32'), (3, 4)), {},
     np.unravel_index),
    ('histogram', 'histogram', (V,), {'bins': 3}, np.histogram),
    ('vander', 'vander', (V,), {'N': 3}, np.vander),
    ('slogdet', 'slogdet', (SPD,), {}, np.linalg.slogdet),
    # more nn ops
    ('sparse_sigmoid', 'sparse_sigmoid', (A,), {}, lambda x: np.clip((x + 1) / 2, 0, 1)),
    ('polar', 'polar', (A,), {}, lambda x: np.tanh(x / 2)),
    ('threshold', 'threshold', (A, 0.2, -1.0), {}, lambda x, t, d: np.where(x > t, x, d)),
    ('sparsemax', 'sparsemax', (A,), {}, _sparsemax),
    ('layer_normalization', 'layer_normalization', (A, pos(4), sym(4)), {'epsilon': 1e-5},
     lambda x, g, b, epsilon: (x - x.mean(-1, keepdims=True)) / np.sqrt(
         x.var(-1, keepdims=True) + epsilon) * g + b),
    ('rms_normalization', 'rms_normalization', (A, pos(4)), {'epsilon': 1e-5},
     lambda x, s, epsilon: x / np.sqrt((x * x).mean(-1, keepdims=True) + epsilon) * s),
    ('depth_to_space', 'depth_to_space', (D2S, 2), {}, _depth_to_space),
    ('space_to_depth', 'space_to_depth', (_depth_to_space(D2S, 2).astype('f'), 2), {},
     lambda x, b: D2S),
    ('unfold', 'unfold', (sym(2, 3, 4, 5), 2), {}, _unfold),
    ('adaptive_average_pool', 'adaptive_average_pool', (sym(2, 5, 7, 3), (2, 3)), {},
     lambda x, s: _adaptive_average(x, s)),
    ('adaptive_max_pool', 'adaptive_max_pool', (sym(2, 6, 3), 4), {},
     lambda x, s: np.stack([x[:, (i * 6) // 4:-(-(i + 1) * 6 // 4)].max(axis=1)
                            for i in range(4)], 1)),
    # Fourier transforms
    ('fft', 'fft', ((A, B),), {},
     lambda x: (np.fft.fft(x[0] + 1j * x[1]).real, np.fft.fft(x[0] + 1j * x[1]).imag)),
    ('ifft', 'ifft', ((A, B),), {},
     lambda x: (np.fft.ifft(x[0] + 1j * x[1]).real, np.fft.ifft(x[0] + 1j * x[1]).imag)),
    ('fft2', 'fft2', ((A, B),), {},
     lambda x: (np.fft.fft2(x[0] + 1j * x[1]).real, np.fft.fft2(x[0] + 1j * x[1]).imag)),
    ('ifft2', 'ifft2', ((A, B),), {},
     lambda x: (np.fft.ifft2(x[0] + 1j * x[1]).real, np.fft.ifft2(x[0] + 1j * x[1]).imag)),
    ('rfft', 'rfft', (sym(3, 6),), {'fft_length': 5},
     lambda x, fft_length: (np.fft.rfft(x, fft_length).real, np.fft.rfft(x, fft_length).imag)),
    ('irfft', 'irfft', ((sym(3, 4), sym(3, 4)),), {'fft_length': 7},
     lambda x, fft_length: np.fft.irfft(x[0] + 1j * x[1], fft_length)),
    ('rearrange_split', 'rearrange', (sym(2, 6, 3), 'b (h w) c -> b c h w'), {'h': 2},
     lambda x, p, h: x.reshape(2, 2, 3, 3).transpose(0, 3, 1, 2)),
    ('rearrange_merge', 'rearrange', (BATCH, 'b h w -> (w b) h'), {},
     lambda x, p: x.transpose(2, 0, 1).reshape(8, 3)),
    ('rearrange_int', 'rearrange', (IDX, 'a b -> b a'), {}, lambda x, p: x.T),
    ('stft', 'stft', (sym(2, 30), 8, 4, 16), {}, _stft_ref),
    ('cholesky_inverse', 'cholesky_inverse', (np.linalg.cholesky(SPD).astype('f'),), {},
     lambda x: np.linalg.inv(x @ np.swapaxes(x, -1, -2))),
    # nn
    ('relu', 'relu', (A,), {}, lambda x: np.maximum(x, 0)),
    ('relu6', 'relu6', (A * 5,), {}, lambda x: np.clip(x, 0, 6)),
    ('sigmoid', 'sigmoid', (A,), {}, lambda x: 1 / (1 + np.exp(-x))),
    ('softplus', 'softplus', (A,), {}, lambda x: np.log1p(np.exp(x))),
    ('softsign', 'softsign', (A,), {}, lambda x: x / (1 + np.abs(x))),
    ('silu', 'silu', (A,), {}, lambda x: x / (1 + np.exp(-x))),
    ('swish', 'swish', (A,), {}, lambda x: x / (1 + np.exp(-x))),
    ('log_sigmoid', 'log_sigmoid', (A,), {}, lambda x: -np.log1p(np.exp(-x))),
    ('leaky_relu', 'leaky_relu', (A,), {'negative_slope': 0.1},
     lambda x, negative_slope: np.where(x > 0, x, negative_slope * x)),
    ('hard_sigmoid', 'hard_sigmoid', (A * 3,), {}, lambda x: np.clip(x + 3, 0, 6) / 6),
    ('hard_silu', 'hard_silu', (A * 3,), {}, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    ('elu', 'elu', (A,), {'alpha': 0.5}, lambda x, alpha: np.where(x > 0, x,
                                                                   alpha * np.expm1(x))),
    ('selu', 'selu', (A,), {}, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(x))),
    ('celu', 'celu', (A,), {}, lambda x: np.maximum(x, 0) + np.minimum(0, np.expm1(x))),
    ('gelu', 'gelu', (A,), {}, _gelu_tanh),
    ('gelu_exact', 'gelu', (A,), {'approximate': False},
     lambda x, approximate: 0.5 * x * (1 + _erf(x / np.sqrt(2)))),
    ('glu', 'glu', (A,), {}, lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:]))),
    ('hard_tanh', 'hard_tanh', (A,), {}, lambda x: np.clip(x, -1, 1)),
    ('tanh_shrink', 'tanh_shrink', (A,), {}, lambda x: x - np.tanh(x)),
    ('squareplus', 'squareplus', (A,), {}, lambda x: (x + np.sqrt(x * x + 4)) / 2),
    ('soft_shrink', 'soft_shrink', (A,), {},
     lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0))),
    ('hard_shrink', 'hard_shrink', (A,), {}, lambda x: np.where(np.abs(x) > 0.5, x, 0)),
    ('sparse_plus', 'sparse_plus', (A,), {},
     lambda x: np.where(x <= -1, 0, np.where(x >= 1, x, (x + 1) ** 2 / 4))),
    ('softmax', 'softmax', (A,), {}, _softmax),
    ('softmax_axis0', 'softmax', (A,), {'axis': 0}, _softmax),
    ('log_softmax', 'log_softmax', (A,), {}, lambda x: np.log(_softmax(x))),
    ('one_hot', 'one_hot', (np.array([0, 2, 5, -1], 'int32'), 4), {},
     lambda x, n: (x[:, None] == np.arange(n)).astype('f')),
    ('multi_hot', 'multi_hot', (np.array([[0, 2], [1, 1]], 'int32'), 4), {},
     lambda x, n: np.stack([np.isin(np.arange(n), r) for r in x]).astype('f')),
    ('binary_crossentropy', 'binary_crossentropy', ((A > 0).astype('f'), pos(3, 4) / 2.1),
     {}, _bce),
    ('binary_crossentropy_logits', 'binary_crossentropy', ((A > 0).astype('f'), B),
     {'from_logits': True}, lambda t, y, from_logits: _bce(t, 1 / (1 + np.exp(-y)))),
    ('categorical_crossentropy', 'categorical_crossentropy', (ONEHOT, _softmax(LOGITS)), {},
     lambda t, y: -(t * np.log(y)).sum(-1)),
    ('categorical_crossentropy_logits', 'categorical_crossentropy', (ONEHOT, LOGITS),
     {'from_logits': True},
     lambda t, y, from_logits: -(t * np.log(_softmax(y))).sum(-1)),
    ('sparse_categorical_crossentropy', 'sparse_categorical_crossentropy',
     (np.array([1, 0, 4], 'int32'), LOGITS), {'from_logits': True},
     lambda t, y, from_logits: -np.log(_softmax(y))[np.arange(3), t]),
    ('moments', 'moments', (BATCH, (0, 1)), {},
     lambda x, axes: (x.mean(axis=axes), x.var(axis=axes))),
    ('batch_normalization', 'batch_normalization',
     (A, V, pos(4) + 0.0, 1), {'offset': sym(4), 'scale': pos(4)},
     lambda x, m, v, axis, offset, scale: (x - m) / np.sqrt(v + 1e-3) * scale + offset),
    ('normalize', 'normalize', (A,), {},
     lambda x: x / np.linalg.norm(x, axis=-1, keepdims=True)),
    ('psnr', 'psnr', (P, P + 0.1), {'max_val': 2.0},
     lambda a, b, max_val: 20 * np.log10(max_val) - 10 * np.log10(((a - b) ** 2).mean())),
    ('dot_product_attention', 'dot_product_attention', (Q, K, VV), {}, _attention),
    ('dot_product_attention_masked', 'dot_product_attention', (Q, K, VV),
     {'mask': np.tri(3, 5, dtype=bool), 'attn_logits_soft_cap': 2.0},
     lambda q, k, v, mask, attn_logits_soft_cap: _attention(q, k, v, mask, 2.0)),
    ('conv', 'conv', (IMG, KER), {}, _conv2d_ref),
    ('conv_same_strided', 'conv', (IMG, KER), {'strides': 2, 'padding': 'same'},
     lambda x, w, strides, padding: _conv2d_ref(x, w, 2, ((0, 1), (0, 1)))),
    ('conv1d', 'conv', (sym(2, 6, 3), sym(2, 3, 4)), {},
     lambda x, w: _conv2d_ref(x[:, :, None], w[:, None])[:, :, 0]),
    ('depthwise_conv', 'depthwise_conv', (IMG, sym(2, 2, 3, 2)), {}, _depthwise_ref),
    ('separable_conv', 'separable_conv', (IMG, sym(2, 2, 3, 1), sym(1, 1, 3, 4)), {},
     lambda x, d, p: _conv2d_ref(_depthwise_ref(x, d), p)),
    ('conv_transpose', 'conv_transpose', (IMG, sym(3, 3, 2, 3)), {'strides': 2},
     _conv_transpose_ref),
    ('conv_transpose_same', 'conv_transpose', (IMG, sym(3, 3, 2, 3)),
     {'strides': 2, 'padding': 'same'}, _conv_transpose_ref),
    ('conv_transpose_output_padding', 'conv_transpose', (IMG, sym(2, 2, 2, 3)),
     {'strides': 3, 'padding': 'same', 'output_padding': 1}, _conv_transpose_ref),
    ('max_pool', 'max_pool', (IMG, 2), {}, lambda x, k: _pool_ref(x, k, 'max')),
    ('average_pool', 'average_pool', (IMG, 2), {}, lambda x, k: _pool_ref(x, k, 'avg')),
    # math
    ('segment_sum', 'segment_sum', (sym(5, 2), SEG), {'num_segments': 4},
     lambda d, i, num_segments: _segment_sum(d, i, num_segments)),
    ('segment_max', 'segment_max', (sym(5, 2), SEG), {'num_segments': 3},
     lambda d, i, num_segments: _segment_max(d, i, num_segments)),
    ('top_k', 'top_k', (A, 2), {}, _top_k),
    ('in_top_k', 'in_top_k', (np.array([1, 0, 4], 'int32'), LOGITS, 2), {},
     lambda t, p, k: np.array([t[i] in np.argsort(-p[i])[:k] for i in range(3)])),
    ('logsumexp', 'logsumexp', (A,), {'axis': 1},
     lambda x, axis: np.log(np.exp(x).sum(axis=axis))),
    ('rsqrt', 'rsqrt', (P,), {}, lambda x: 1 / np.sqrt(x)),
    ('erf', 'erf', (A,), {}, _erf),
    ('erfinv', 'erfinv', (unit(3, 4),), {}, None),
    ('extract_sequences', 'extract_sequences', (sym(2, 7), 3, 2), {},
     lambda x, n, s: np.stack([x[:, i:i + n] for i in range(0, 5, s)], axis=1)),
    ('logdet', 'logdet', (SPD,), {}, lambda x: np.linalg.slogdet(x)[1]),
    # linalg
    ('inv', 'inv', (SPD,), {}, np.linalg.inv),
    ('det', 'det', (SPD,), {}, np.linalg.det),
    ('solve', 'solve', (SPD, sym(2, 3, 2)), {}, np.linalg.solve),
    ('solve_vector', 'solve', (SPD[0], sym(3)), {}, np.linalg.solve),
    ('solve_triangular', 'solve_triangular', (SPD[0], sym(3, 2)), {'lower': True},
     lambda a, b, lower: np.linalg.solve(np.tril(a), b)),
    ('cholesky', 'cholesky', (SPD,), {}, np.linalg.cholesky),
    ('norm', 'norm', (A,), {}, np.linalg.norm),
    ('norm_axis', 'norm', (A,), {'axis': 1, 'ord': 1}, np.linalg.norm),
    ('norm_inf', 'norm', (A,), {'axis': 0, 'ord': np.inf}, np.linalg.norm),
    ('norm_p', 'norm', (A,), {'axis': -1, 'ord': 3}, np.linalg.norm),
    ('norm_fro', 'norm', (BATCH,), {'axis': (1, 2)}, np.linalg.norm),
    ('norm_matrix_1', 'norm', (A,), {'ord': 1, 'axis': (0, 1)}, np.linalg.norm),
    ('svd_values', 'svd', (A,), {'compute_uv': False}, np.linalg.svd),
    ('lstsq', 'lstsq', (sym(5, 3), sym(5, 2)), {},
     lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0]),
    # core
    ('cast', 'cast', (A, 'float64'), {}, lambda x, d: x.astype(d)),
    ('cast_int', 'cast', (A, 'int32'), {}, lambda x, d: x.astype(d)),
    ('stop_gradient', 'stop_gradient', (A,), {}, lambda x: x),
    ('unstack', 'unstack', (A,), {'axis': 1}, lambda x, axis: list(np.moveaxis(x, 1, 0))),
    ('slice', 'slice', (BATCH, (0, 1, 1), (2, 2, -1)), {},
     lambda x, s, n: x[:, 1:3, 1:]),
    ('slice_update', 'slice_update', (A, (1, 1), sym(2, 2)), {},
     lambda x, s, u: np.concatenate([x[:1], np.concatenate([x[1:, :1], u, x[1:, 3:]], 1)])),
    ('scatter', 'scatter', (np.array([[0, 1], [2, 3], [0, 1]], 'int32'), sym(3), (3, 4)), {},
     None),
    ('scatter_update', 'scatter_update', (A, np.array([[0, 1], [2, 3]], 'int32'), sym(2)),
     {}, None),
    ('saturate_cast', 'saturate_cast', (A * 200, 'int8'), {},
     lambda x, d: np.clip(x, -128, 127).astype(d)),
]


def _scatter_ref(idx, vals, shape):
    out = np.zeros(shape)
    np.add.at(out, tuple(idx.T), vals)
    return out


def _scatter_update_ref(x, idx, vals):
    out = x.copy()
    out[tuple(idx.T)] = vals
    return out


def _erfinv_ref(y):
    scipy_special = pytest.importorskip('scipy.special')
    return scipy_special.erfinv(y)


REFERENCES = {'scatter': _scatter_ref, 'scatter_update': _scatter_update_ref,
              'erfinv': _erfinv_ref}


def _reference(case):
    cid, name, args, kwargs, ref = case
    return (ref or REFERENCES[cid])(*args, **kwargs)


def _leaves(x):
    if isinstance(x, (list, tuple)):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def _values(x):
    return [np.asarray(chainlet.backend.to_cpu(v.array if isinstance(v, chainlet.Variable)
                                               else v)) for v in _leaves(x)]


def _assert_close(got, want, case_id):
    got, want = _values(got), [np.asarray(w) for w in _leaves(want)]
    assert len(got) == len(want), case_id
    for g, w in zip(got, want):
        assert g.shape == w.shape, (case_id, g.shape, w.shape)
        if w.dtype == bool:
            np.testing.assert_array_equal(g, w, err_msg=case_id)
        else:
            np.testing.assert_allclose(g.astype('float64'), w.astype('float64'), rtol=2e-4,
                                       atol=2e-5, err_msg=case_id)


IDS = [c[0] for c in CASES]


@pytest.mark.parametrize('case', CASES, ids=IDS)
def test_on_arrays(case):
    cid, name, args, kwargs, _ = case
    out = getattr(ops, name)(*args, **kwargs)
    for leaf in _leaves(out):
        assert not isinstance(leaf, chainlet.Variable), cid
        assert isinstance(leaf, np.ndarray), (cid, type(leaf))
    _assert_close(out, _reference(case), cid)


def _as_variables(value):
    if isinstance(value, np.ndarray):
        return chainlet.Variable(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_as_variables(v) for v in value)
    return value


@pytest.mark.parametrize('case', CASES, ids=IDS)
def test_on_variables(case):
    cid, name, args, kwargs, _ = case
    tensor_args = [_as_variables(a) for a in args]
    tensor_kwargs = {k: _as_variables(v) for k, v in kwargs.items()}
    try:
        out = getattr(ops, name)(*tensor_args, **tensor_kwargs)
    except TypeError as e:  # an array where the op wants a plain value (e.g. digitize bins)
        pytest.skip(f'{cid}: {e}')
    for leaf in _leaves(out):
        assert isinstance(leaf, chainlet.Variable), (cid, type(leaf))
    _assert_close(out, _reference(case), cid)


# Ops whose array arguments are not all tensors, or whose outputs have no fixed shape.
NOT_SYMBOLIC = {'digitize', 'bincount', 'nan_to_num', 'isnan', 'isinf', 'isfinite', 'nonzero'}


@pytest.mark.parametrize('case', [c for c in CASES if c[0] not in NOT_SYMBOLIC],
                         ids=[c[0] for c in CASES if c[0] not in NOT_SYMBOLIC])
def test_in_functional_model(case):
    cid, name, args, kwargs, _ = case
    inputs, values = [], []

    def symbolic(value):
        if isinstance(value, np.ndarray) and value.ndim >= 1:
            t = keras.Input(batch_shape=value.shape, dtype=value.dtype.name)
            inputs.append(t)
            values.append(value)
            return t
        if isinstance(value, (list, tuple)):
            return type(value)(symbolic(v) for v in value)
        return value
    sym_args = [symbolic(a) for a in args]
    sym_kwargs = {k: symbolic(v) for k, v in kwargs.items()}
    if not inputs:
        pytest.skip('no tensor argument')
    out = getattr(ops, name)(*sym_args, **sym_kwargs)
    for leaf in _leaves(out):
        assert isinstance(leaf, keras.KerasTensor), (cid, type(leaf))
    model = keras.Model(inputs, out)
    result = model(values if len(values) > 1 else values[0])
    _assert_close(result, _reference(case), cid)


@pytest.mark.gpu
@pytest.mark.parametrize('case', CASES, ids=IDS)
def test_on_cupy(case):
    cupy = pytest.importorskip('cupy')
    cid, name, args, kwargs, _ = case

    def to_gpu(v):
        if isinstance(v, np.ndarray):
            return cupy.asarray(v)
        if isinstance(v, (list, tuple)):
            return type(v)(to_gpu(a) for a in v)
        return v
    out = getattr(ops, name)(*[to_gpu(a) for a in args],
                             **{k: to_gpu(v) for k, v in kwargs.items()})
    leaves = _leaves(out)
    assert all(isinstance(leaf, cupy.ndarray) for leaf in leaves), cid
    _assert_close(out, _reference(case), cid)
