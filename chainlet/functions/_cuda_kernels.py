"""Fused CUDA kernels behind the ``forward_gpu`` methods (CuPy only, built on first use).

Each kernel reads its inputs once and writes its outputs once, instead of the several
temporaries the NumPy code needs. Arithmetic runs in ``acc_t``: ``float`` for float16 and
float32 arrays, ``double`` for float64 ones, so float16 inputs are computed in float32 and
rounded once, as the NumPy paths do. In parameter lists, ``T`` (and other single capitals) are
CuPy's type placeholders and ``acc_t`` becomes ``float32`` or ``float64``.

Nothing here imports CuPy at module level; :class:`Elementwise` and :class:`Reduction` create
the ``cupy.ElementwiseKernel`` / ``cupy.ReductionKernel`` the first time they are called with
arrays of a given precision (CuPy then compiles and caches it per device).
"""
from __future__ import annotations

import re
from typing import Any

import numpy

from chainlet import backend

_F64 = numpy.dtype(numpy.float64)


def acc_dtype(dtype: Any) -> numpy.dtype:
    """The dtype kernels compute in for arrays of ``dtype`` (float64 stays, others float32)."""
    return _F64 if numpy.dtype(dtype) == _F64 else numpy.dtype(numpy.float32)


def _is_double(args: tuple) -> bool:
    """Whether the first floating-point array among ``args`` is float64 (integer labels and
    scalars do not decide the precision)."""
    for a in args:
        dtype = getattr(a, 'dtype', None)
        if dtype is not None and dtype.kind == 'f' and not isinstance(a, numpy.generic):
            return dtype == _F64
    return False


def _typed(params: str, double: bool) -> str:
    return re.sub(r'\bacc_t\b', 'float64' if double else 'float32', params)


def _preamble(double: bool) -> str:
    return f'typedef {"double" if double else "float"} acc_t;\n'


class Elementwise:
    """A ``cupy.ElementwiseKernel`` built lazily, one per precision (that of the first
    floating-point array argument).

    Args:
        in_params, out_params, operation, name: As for ``cupy.ElementwiseKernel``;
            ``acc_t`` may be used as a type in the parameters and the operation.
    """

    def __init__(self, in_params: str, out_params: str, operation: str, name: str) -> None:
        self.in_params = in_params
        self.out_params = out_params
        self.operation = operation
        self.name = name
        self._kernels: dict = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        double = _is_double(args)
        kernel = self._kernels.get(double)
        if kernel is None:
            kernel = self._kernels[double] = backend.import_cupy().ElementwiseKernel(
                _typed(self.in_params, double), _typed(self.out_params, double),
                self.operation, f'chainlet_{self.name}_{"f64" if double else "f32"}',
                preamble=_preamble(double))
        return kernel(*args, **kwargs)


class Reduction:
    """A ``cupy.ReductionKernel`` built lazily, one per precision (that of the first
    floating-point array argument); the reduction variable ``a`` has type ``acc_t``."""

    def __init__(self, in_params: str, out_params: str, map_expr: str, reduce_expr: str,
                 post_map_expr: str, identity: str, name: str) -> None:
        self.args = (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity)
        self.name = name
        self._kernels: dict = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        double = _is_double(args)
        kernel = self._kernels.get(double)
        if kernel is None:
            in_params, out_params, map_expr, reduce_expr, post_map_expr, identity = self.args
            kernel = self._kernels[double] = backend.import_cupy().ReductionKernel(
                _typed(in_params, double), _typed(out_params, double), map_expr, reduce_expr,
                post_map_expr, identity, f'chainlet_{self.name}_{"f64" if double else "f32"}',
                reduce_type='double' if double else 'float', preamble=_preamble(double))
        return kernel(*args, **kwargs)


# -- activations: forward and gradient (gx = gy * f'(x)) --

relu = Elementwise(
    'T x', 'T y',
    'acc_t v = (acc_t)x; y = (T)(v <= 0 ? (acc_t)0 : v);',  # NaN passes through, as in NumPy
    'relu')
relu_grad = Elementwise(
    'T gy, T y', 'T gx',
    'gx = (T)((acc_t)y > 0 ? (acc_t)gy : (acc_t)0);',
    'relu_grad')
# exp(-|x|) never overflows, and e / (1 + e) keeps full relative precision in the left tail.
sigmoid = Elementwise(
    'T x', 'T y',
    'acc_t v = (acc_t)x; acc_t e = exp(-fabs(v));'
    'y = (T)((v >= 0 ? (acc_t)1 : e) / (1 + e));',
    'sigmoid')
sigmoid_grad = Elementwise(
    'T y, T gy', 'T gx',
    'acc_t s = (acc_t)y; gx = (T)((acc_t)gy * s * (1 - s));',
    'sigmoid_grad')
tanh = Elementwise('T x', 'T y', 'y = (T)tanh((acc_t)x);', 'tanh')
tanh_grad = Elementwise(
    'T y, T gy', 'T gx',
    'acc_t t = (acc_t)y; gx = (T)((acc_t)gy * (1 - t * t));',
    'tanh_grad')
# expm1 only sees x <= 0, so a large positive x cannot overflow it; NaN stays NaN.
elu = Elementwise(
    'T x, acc_t scale, acc_t alpha_scale, acc_t rate', 'T y',
    'acc_t v = (acc_t)x;'
    'y = (T)(v > 0 ? v * scale : expm1((v > 0 ? (acc_t)0 : v) * rate) * alpha_scale);',
    'elu')
elu_grad = Elementwise(
    'T x, T gy, acc_t scale, acc_t coef, acc_t rate', 'T gx',
    'acc_t v = (acc_t)x;'
    'gx = (T)((acc_t)gy * (v > 0 ? scale : exp(v * rate) * coef));',
    'elu_grad')
# Phi(x) = erfc(-x / sqrt(2)) / 2; phi(x) = exp(-x^2 / 2) / sqrt(2 pi), |x| clipped at 40
# where it is 0 in double precision anyway, so that x * x cannot overflow.
gelu = Elementwise(
    'T x', 'T y',
    'acc_t v = (acc_t)x;'
    'y = (T)(v * (acc_t)0.5 * erfc(-v * (acc_t)0.70710678118654752));',
    'gelu')
gelu_grad = Elementwise(
    'T x, T gy', 'T gx',
    'acc_t v = (acc_t)x; acc_t a = fmin(fabs(v), (acc_t)40);'
    'acc_t phi = exp(a * a * (acc_t)-0.5) * (acc_t)0.39894228040143268;'
    'acc_t cdf = (acc_t)0.5 * erfc(-v * (acc_t)0.70710678118654752);'
    'gx = (T)((acc_t)gy * (cdf + v * phi));',
    'gelu_grad')
# sigmoid(z) = tanh(z / 2) / 2 + 1 / 2: no exp, hence no overflow.
swish = Elementwise(
    'T x, T beta', 'T y',
    'acc_t v = (acc_t)x; acc_t z = (acc_t)beta * v * (acc_t)0.5;'
    'y = (T)(v * (tanh(z) * (acc_t)0.5 + (acc_t)0.5));',
    'swish')
silu = Elementwise(
    'T x', 'T y',
    'acc_t v = (acc_t)x; y = (T)(v * (tanh(v * (acc_t)0.5) * (acc_t)0.5 + (acc_t)0.5));',
    'silu')
softplus = Elementwise(
    'T x, acc_t beta', 'T y',
    'acc_t bx = (acc_t)x * beta;'
    'y = (T)((fmax(bx, (acc_t)0) + log1p(exp(-fabs(bx)))) / beta);',
    'softplus')
softplus_grad = Elementwise(
    'T x, T gy, acc_t beta', 'T gx',
    'acc_t z = (acc_t)x * beta * (acc_t)0.5;'
    'gx = (T)((acc_t)gy * (tanh(z) * (acc_t)0.5 + (acc_t)0.5));',
    'softplus_grad')
leaky_relu = Elementwise(
    'T x, acc_t slope', 'T y',
    'acc_t v = (acc_t)x; y = (T)(v >= 0 ? v : v * slope);',
    'leaky_relu')
leaky_relu_grad = Elementwise(
    'T gy, T cond, acc_t slope', 'T gx',
    'acc_t g = (acc_t)gy; gx = (T)((acc_t)cond < 0 ? g * slope : g);',
    'leaky_relu_grad')

# -- log-softmax and softmax cross entropy --

# log(sum(exp(x - max))) along the reduced axis; m (the max) broadcasts against x.
_log_sum_exp_shifted = Reduction(
    'T x, T m', 'acc_t s', 'exp((acc_t)x - (acc_t)m)', 'a + b', 's = log(a)', '0',
    'log_sum_exp_shifted')
_log_softmax_finish = Elementwise(
    'T x, T m, acc_t s', 'T y', 'y = (T)((acc_t)x - (acc_t)m - s);', 'log_softmax_finish')
log_softmax_grad = Elementwise(
    'T y, T gy, T s', 'T gx', 'gx = (T)((acc_t)gy - exp((acc_t)y) * (acc_t)s);',
    'log_softmax_grad')


def log_softmax(x: Any, axis: int) -> Any:
    """``x - logsumexp(x, axis)`` of a CuPy array in three passes (max, sum, subtract)."""
    if x.size == 0:
        return x.copy()
    m = x.max(axis=axis, keepdims=True)
    s = _log_sum_exp_shifted(x, m, axis=axis, keepdims=True)
    return _log_softmax_finish(x, m, s)


# Per-instance loss -w[t] log y[t]; zero where t == ignore. log_y and w are C-contiguous;
# instance i of t (shape (N, d...)) is (n, r) with rest = prod(d...).
softmax_cross_entropy_loss = Elementwise(
    'S t, raw T log_y, raw T w, int32 n_class, int32 rest, int64 ignore', 'T loss',
    'if ((long long)t == ignore) { loss = (T)(acc_t)0; } else {'
    '  ptrdiff_t n = i / rest; ptrdiff_t r = i - n * rest;'
    '  loss = (T)(-(acc_t)log_y[(n * n_class + t) * rest + r] * (acc_t)w[t]); }',
    'softmax_cross_entropy_loss')
# gx = (y - onehot(t)) * w[t] * coeff * gloss over x's shape (N, C, d...).
softmax_cross_entropy_grad = Elementwise(
    'T y, raw S t, raw T w, raw T gloss, raw acc_t coeff, int32 n_class, int32 rest, '
    'int64 ignore, int32 per_instance', 'T gx',
    'ptrdiff_t r = i % rest; ptrdiff_t nc = i / rest;'
    'ptrdiff_t c = nc % n_class; ptrdiff_t k = (nc / n_class) * rest + r;'
    'S tl = t[k];'
    'if ((long long)tl == ignore) { gx = (T)(acc_t)0; } else {'
    '  acc_t g = (acc_t)gloss[per_instance ? k : 0] * coeff[0] * (acc_t)w[tl];'
    '  gx = (T)(((acc_t)y - (c == tl ? (acc_t)1 : (acc_t)0)) * g); }',
    'softmax_cross_entropy_grad')

# -- batch normalization --

batch_norm = Elementwise(
    'T x, acc_t mean, acc_t inv_std, G gamma, G beta', 'T y',
    'y = (T)(((acc_t)x - mean) * inv_std * (acc_t)gamma + (acc_t)beta);',
    'batch_norm')
batch_norm_ggamma = Reduction(
    'T gy, T x, acc_t mean, acc_t inv_std', 'acc_t ggamma',
    '(acc_t)gy * ((acc_t)x - mean) * inv_std', 'a + b', 'ggamma = a', '0',
    'batch_norm_ggamma')
batch_norm_gx = Elementwise(
    'T x, T gy, acc_t mean, acc_t inv_std, G gamma, acc_t ggamma, acc_t gbeta, acc_t inv_m',
    'T gx',
    'acc_t xh = ((acc_t)x - mean) * inv_std;'
    'gx = (T)((acc_t)gamma * inv_std * ((acc_t)gy - (xh * ggamma + gbeta) * inv_m));',
    'batch_norm_gx')

# -- dropout: the mask is drawn (u uniform in [0, 1)) and applied in one pass --

dropout = Elementwise(
    'T x, float32 u, acc_t ratio, T scale', 'T y, T mask',
    'mask = u >= ratio ? scale : (T)(acc_t)0; y = (T)((acc_t)x * (acc_t)mask);',
    'dropout')
