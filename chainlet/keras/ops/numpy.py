"""``keras.ops.numpy``: NumPy-like ops on KerasTensors, chainlet Variables and arrays.

Every op maps onto :mod:`chainlet.functions` (so it is differentiable and runs on NumPy and
CuPy); see :mod:`chainlet.keras.ops._dispatch` for how a call is dispatched and which type it
returns. Integer and boolean inputs, which have no gradient, run on the arrays directly.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.sum(ops.multiply(np.array([1., 2.]), 3.0))
    array(9.)
"""
from __future__ import annotations

import builtins
import typing
from typing import Any, Literal, Optional, Sequence

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.ops._dispatch import (FLOATX, array_of, axis_tuple, cast, const,
                                          dtype_of, index_grids, is_float, keras_op, promote,
                                          result_dtype, to_float, xp_of)

# -- helpers ------------------------------------------------------------------------------


def _arr(x: Any) -> Any:
    """The raw array of a tensor (Python numbers pass)."""
    return array_of(x)


def _broadcast2(a: Any, b: Any) -> tuple:
    """``F.broadcast(a, b)``: with two arguments always a pair (only one argument gives a lone
    Variable, which F.broadcast's annotation also allows)."""
    return typing.cast(tuple, F.broadcast(a, b))


def _unary(name: str, fn: Any, int_fn: Optional[str] = None, doc: str = '') -> Any:
    """An elementwise op: ``fn`` on floats; integers go to floatx, or, with ``int_fn``, to
    ``xp.<int_fn>`` unchanged."""
    def impl(x: Any) -> Any:
        if not is_float(x):
            if int_fn is not None:
                return getattr(x.xp, int_fn)(x.array)
            x = to_float(x)
        return fn(x)
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = doc or f'Elementwise ``{name}``.'
    return keras_op('x')(impl)


def _binary(name: str, fn: Any, int_fn: Optional[Any] = None, floating: bool = False,
            doc: str = '') -> Any:
    """A broadcasting binary op: ``fn`` on floats (after Keras's promotion), ``int_fn(xp, a, b)``
    on integer or boolean arrays."""
    def impl(x1: Any, x2: Any) -> Any:
        a, b = promote(x1, x2, floating=floating)
        if result_dtype(a, b).kind == 'f' or int_fn is None:
            if fn is None:
                raise TypeError(f'keras.ops.{name}: expected integer or boolean inputs, got '
                                f'{result_dtype(a, b).name}')
            a, b = to_float(a), to_float(b)
            return fn(a, b)
        xp = xp_of(a, b)
        dtype = result_dtype(a, b)
        return xp.asarray(int_fn(xp, _arr(a), _arr(b))).astype(dtype, copy=False)
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = doc or f'Elementwise ``{name}`` with broadcasting.'
    return keras_op('x1', 'x2')(impl)


def _as_var(x: Any, like: Any) -> Variable:
    """A Python number as a Variable of ``like``'s dtype (tensors pass)."""
    if isinstance(x, Variable):
        return x
    return const(x, like, dtype_of(like) if isinstance(like, Variable) else None)


# -- arithmetic -----------------------------------------------------------------------------

add = _binary('add', lambda a, b: a + b, lambda xp, a, b: a + b)
subtract = _binary('subtract', lambda a, b: a - b, lambda xp, a, b: a - b)
multiply = _binary('multiply', lambda a, b: a * b, lambda xp, a, b: a * b)
divide = _binary('divide', lambda a, b: a / b, floating=True,
                 doc='True division; integers give floatx.')
true_divide = divide
power = _binary('power', lambda a, b: a ** b, lambda xp, a, b: xp.power(a, b))
maximum = _binary('maximum', lambda a, b: F.maximum(_as_var(a, b), _as_var(b, a)),
                  lambda xp, a, b: xp.maximum(a, b))
minimum = _binary('minimum', lambda a, b: F.minimum(_as_var(a, b), _as_var(b, a)),
                  lambda xp, a, b: xp.minimum(a, b))
floor_divide = _binary('floor_divide', lambda a, b: F.floor(a / b),
                       lambda xp, a, b: xp.floor_divide(a, b))
mod = _binary('mod', lambda a, b: a - F.floor(a / b).array * b,
              lambda xp, a, b: xp.mod(a, b), doc='Remainder with the sign of the divisor.')
arctan2 = _binary('arctan2', lambda a, b: F.arctan2(_as_var(a, b), _as_var(b, a)),
                  floating=True)
logaddexp = _binary('logaddexp',
                    lambda a, b: F.logsumexp(F.stack(_broadcast2(_as_var(a, b),
                                                                 _as_var(b, a))), axis=0),
                    floating=True, doc='``log(exp(x1) + exp(x2))``, computed stably.')


@keras_op('x1', 'x2')
def divide_no_nan(x1: Any, x2: Any) -> Any:
    """``x1 / x2``, and 0 where ``x2`` is 0."""
    a, b = promote(x1, x2, floating=True)
    a, b = _broadcast2(_as_var(a, b), _as_var(b, a))
    zero = b.array == 0
    q = a / F.where(zero, const(b.xp.ones(b.shape, b.dtype), b), b)
    return F.where(zero, const(b.xp.zeros(b.shape, b.dtype), b), q)


@keras_op('x')
def negative(x: Any) -> Any:
    """``-x``."""
    return -x


@keras_op('x')
def reciprocal(x: Any) -> Any:
    """``1 / x`` (integers give floatx)."""
    return 1.0 / to_float(x)


@keras_op('x')
def square(x: Any) -> Any:
    """``x * x``."""
    return F.square(x) if is_float(x) else x.xp.square(x.array)


@keras_op('x')
def absolute(x: Any) -> Any:
    """Absolute value."""
    return F.absolute(x) if is_float(x) else x.xp.abs(x.array)


abs = absolute

sqrt = _unary('sqrt', F.sqrt)
exp = _unary('exp', F.exp)
exp2 = _unary('exp2', lambda x: F.exp(x * float(numpy.log(2.0))))
expm1 = _unary('expm1', F.expm1)
log = _unary('log', F.log)
log2 = _unary('log2', F.log2)
log10 = _unary('log10', F.log10)
log1p = _unary('log1p', F.log1p)
sin = _unary('sin', F.sin)
cos = _unary('cos', F.cos)
tan = _unary('tan', F.tan)
arcsin = _unary('arcsin', F.arcsin)
arccos = _unary('arccos', F.arccos)
arctan = _unary('arctan', F.arctan)
sinh = _unary('sinh', F.sinh)
cosh = _unary('cosh', F.cosh)
tanh = _unary('tanh', F.tanh)
arctanh = _unary('arctanh', F.arctanh)
arcsinh = _unary('arcsinh', lambda x: F.log(x + F.sqrt(F.square(x) + 1.0)))
arccosh = _unary('arccosh', lambda x: F.log(x + F.sqrt(F.square(x) - 1.0)))
sign = _unary('sign', F.sign, int_fn='sign')
floor = _unary('floor', F.floor, int_fn='copy')
ceil = _unary('ceil', F.ceil, int_fn='copy')
trunc = _unary('trunc', F.fix, int_fn='copy')


@keras_op('x')
def round(x: Any, decimals: int = 0) -> Any:
    """Round half to even to ``decimals`` places (no gradient, as in Keras)."""
    return x.xp.round(x.array, decimals)


@keras_op('x')
def clip(x: Any, x_min: Any, x_max: Any) -> Any:
    """Limit values to ``[x_min, x_max]``."""
    if not is_float(x):
        return x.xp.clip(x.array, _arr(x_min), _arr(x_max))
    lo = None if x_min is None else float(_arr(x_min))
    hi = None if x_max is None else float(_arr(x_max))
    return F.clip(x, lo, hi)


@keras_op('x')
def nan_to_num(x: Any, nan: float = 0.0, posinf: Optional[float] = None,
               neginf: Optional[float] = None) -> Any:
    """NaN and infinities replaced by finite numbers (gradient 1 where ``x`` is kept)."""
    if not is_float(x):
        return x
    xp = x.xp
    fixed = xp.nan_to_num(x.array, nan=nan, posinf=posinf, neginf=neginf)
    bad = ~xp.isfinite(x.array)
    return F.where(bad, const(fixed, x), x)


# -- comparisons and logic (no gradient) ---------------------------------------------------

def _compare(name: str, fn: Any) -> Any:
    def impl(x1: Any, x2: Any) -> Any:
        a, b = promote(x1, x2)
        return fn(xp_of(a, b), _arr(a), _arr(b))
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = f'Elementwise ``{name}`` (boolean result).'
    return keras_op('x1', 'x2')(impl)


equal = _compare('equal', lambda xp, a, b: xp.equal(a, b))
not_equal = _compare('not_equal', lambda xp, a, b: xp.not_equal(a, b))
less = _compare('less', lambda xp, a, b: xp.less(a, b))
less_equal = _compare('less_equal', lambda xp, a, b: xp.less_equal(a, b))
greater = _compare('greater', lambda xp, a, b: xp.greater(a, b))
greater_equal = _compare('greater_equal', lambda xp, a, b: xp.greater_equal(a, b))
logical_and = _compare('logical_and', lambda xp, a, b: xp.logical_and(a, b))
logical_or = _compare('logical_or', lambda xp, a, b: xp.logical_or(a, b))
logical_xor = _compare('logical_xor', lambda xp, a, b: xp.logical_xor(a, b))


@keras_op('x')
def logical_not(x: Any) -> Any:
    """Elementwise ``not``."""
    return x.xp.logical_not(x.array)


@keras_op('x')
def isnan(x: Any) -> Any:
    """True where ``x`` is NaN."""
    return x.xp.isnan(x.array)


@keras_op('x')
def isinf(x: Any) -> Any:
    """True where ``x`` is infinite."""
    return x.xp.isinf(x.array)


@keras_op('x')
def isfinite(x: Any) -> Any:
    """True where ``x`` is finite."""
    return x.xp.isfinite(x.array)


@keras_op('x1', 'x2')
def isclose(x1: Any, x2: Any, rtol: float = 1e-5, atol: float = 1e-8,
            equal_nan: bool = False) -> Any:
    """``|x1 - x2| <= atol + rtol * |x2|`` elementwise."""
    a, b = promote(x1, x2)
    return xp_of(a, b).isclose(_arr(a), _arr(b), rtol=rtol, atol=atol, equal_nan=equal_nan)


@keras_op('x')
def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Whether any element (along ``axis``) is true."""
    return x.xp.any(x.array, axis=axis_tuple(axis, x.ndim), keepdims=keepdims)


@keras_op('x')
def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Whether all elements (along ``axis``) are true."""
    return x.xp.all(x.array, axis=axis_tuple(axis, x.ndim), keepdims=keepdims)


@keras_op('x')
def count_nonzero(x: Any, axis: Any = None) -> Any:
    """Number of non-zero elements (int32)."""
    return x.xp.asarray(x.xp.count_nonzero(x.array, axis=axis_tuple(axis, x.ndim)), 'int32')


# -- reductions -----------------------------------------------------------------------------

def _int_sum_dtype(dtype: numpy.dtype) -> numpy.dtype:
    if dtype.kind == 'b' or (dtype.kind in 'iu' and dtype.itemsize < 4):
        return numpy.dtype('int32')
    return dtype


@keras_op('x')
def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Sum over ``axis`` (all axes when ``None``)."""
    axes = axis_tuple(axis, x.ndim)
    if not is_float(x):
        return x.xp.sum(x.array, axis=axes, keepdims=keepdims,
                        dtype=_int_sum_dtype(x.dtype))
    return F.sum(x, axis=axes, keepdims=keepdims)


@keras_op('x')
def prod(x: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
    """Product over ``axis``."""
    if dtype is not None:
        x = cast(x, dtype)
    axes = axis_tuple(axis, x.ndim)
    if not is_float(x):
        return x.xp.prod(x.array, axis=axes, keepdims=keepdims,
                         dtype=_int_sum_dtype(x.dtype))
    return F.prod(x, axis=axes, keepdims=keepdims)


@keras_op('x')
def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Mean over ``axis`` (integers give floatx)."""
    return F.mean(to_float(x), axis=axis_tuple(axis, x.ndim), keepdims=keepdims)


@keras_op('x')
def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Population variance over ``axis``."""
    x = to_float(x)
    axes = axis_tuple(axis, x.ndim)
    centered = x - F.mean(x, axis=axes, keepdims=True)
    return F.mean(F.square(centered), axis=axes, keepdims=keepdims)


@keras_op('x')
def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Population standard deviation over ``axis``."""
    return F.sqrt(var.impl(x, axis, keepdims))


def _extreme(name: str, fn: Any, xp_name: str) -> Any:
    def impl(x: Any, axis: Any = None, keepdims: bool = False, initial: Any = None) -> Any:
        axes = axis_tuple(axis, x.ndim)
        if not is_float(x):
            kw = {} if initial is None else {'initial': initial}
            return getattr(x.xp, xp_name)(x.array, axis=axes, keepdims=keepdims, **kw)
        y = fn(x, axis=axes, keepdims=keepdims)
        if initial is not None:
            y = (F.maximum if name == 'max' else F.minimum)(y, const(initial, y, y.dtype))
        return y
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = f'``{name}`` over ``axis``, optionally against ``initial``.'
    return keras_op('x')(impl)


max = _extreme('max', F.max, 'max')
min = _extreme('min', F.min, 'min')
amax = max
amin = min


@keras_op('x')
def argmax(x: Any, axis: Optional[int] = None, keepdims: bool = False) -> Any:
    """Index of the largest value (int32)."""
    return x.xp.argmax(x.array, axis=axis, keepdims=keepdims).astype('int32')


@keras_op('x')
def argmin(x: Any, axis: Optional[int] = None, keepdims: bool = False) -> Any:
    """Index of the smallest value (int32)."""
    return x.xp.argmin(x.array, axis=axis, keepdims=keepdims).astype('int32')


@keras_op('x', 'weights')
def average(x: Any, axis: Optional[int] = None, weights: Any = None) -> Any:
    """Weighted mean over ``axis`` (plain mean without ``weights``)."""
    x = to_float(x)
    if weights is None:
        return F.mean(x, axis=axis)
    x, w = promote(x, weights, floating=True)
    if w.ndim != x.ndim:  # 1-D weights along ``axis``
        shape = [1] * x.ndim
        # cast: axis=None fails here (TypeError), as NumPy's average refuses it too.
        shape[typing.cast(int, axis)] = w.shape[0]
        w = F.reshape(w, tuple(shape))
    w = F.broadcast_to(w, x.shape)
    if x.dtype == numpy.float16:
        # Both sums may pass float16's 65504 (inf / inf is NaN): divide them in float32.
        x, w = cast(x, numpy.float32), cast(w, numpy.float32)
        return cast(F.sum(x * w, axis=axis) / F.sum(w, axis=axis), numpy.float16)
    return F.sum(x * w, axis=axis) / F.sum(w, axis=axis)


@keras_op('x')
def cumsum(x: Any, axis: Optional[int] = None, dtype: Any = None) -> Any:
    """Cumulative sum (of the flattened array when ``axis`` is ``None``)."""
    if dtype is not None:
        x = cast(x, dtype)
    if not is_float(x):
        return x.xp.cumsum(x.array, axis=axis, dtype=_int_sum_dtype(x.dtype))
    return F.cumsum(x, axis=axis)


@keras_op('x')
def cumprod(x: Any, axis: Optional[int] = None, dtype: Any = None) -> Any:
    """Cumulative product (of the flattened array when ``axis`` is ``None``)."""
    if dtype is not None:
        x = cast(x, dtype)
    if not is_float(x):
        return x.xp.cumprod(x.array, axis=axis, dtype=_int_sum_dtype(x.dtype))
    return F.cumprod(x, axis=axis)


@keras_op('x')
def diff(x: Any, n: int = 1, axis: int = -1) -> Any:
    """``n``-th discrete difference along ``axis``."""
    for _ in range(n):
        ax = axis % x.ndim
        hi = tuple(slice(1, None) if i == ax else slice(None) for i in range(x.ndim))
        lo = tuple(slice(None, -1) if i == ax else slice(None) for i in range(x.ndim))
        x = x[hi] - x[lo]
    return x


# -- products -------------------------------------------------------------------------------

@keras_op('x1', 'x2')
def matmul(x1: Any, x2: Any) -> Any:
    """Matrix product with NumPy's broadcasting and 1-D rules."""
    a, b = promote(x1, x2)
    if not is_float(a):
        return xp_of(a, b).matmul(a.array, b.array)
    return F.matmul(a, b)


@keras_op('x1', 'x2')
def dot(x1: Any, x2: Any) -> Any:
    """NumPy's ``dot``: products of scalars, vectors, matrices, or a sum over the last axis of
    ``x1`` and the second-to-last of ``x2``."""
    a, b = promote(x1, x2)
    if not is_float(a):
        return xp_of(a, b).dot(a.array, b.array)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim <= 2:
        return F.matmul(a, b)
    return F.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 2]))


@keras_op('x1', 'x2')
def tensordot(x1: Any, x2: Any, axes: Any = 2) -> Any:
    """Sum of products over the given axes."""
    a, b = promote(x1, x2)
    if not is_float(a):
        return xp_of(a, b).tensordot(a.array, b.array, axes)
    return F.tensordot(a, b, axes=axes)


@keras_op('x1', 'x2')
def outer(x1: Any, x2: Any) -> Any:
    """Outer product of the flattened inputs."""
    a, b = promote(x1, x2)
    a, b = F.reshape(a, (-1, 1)), F.reshape(b, (1, -1))
    return a * b


@keras_op('x1', 'x2')
def inner(x1: Any, x2: Any) -> Any:
    """Sum of products over the last axes."""
    a, b = promote(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return F.tensordot(a, b, axes=([a.ndim - 1], [b.ndim - 1]))


@keras_op('x1', 'x2')
def vdot(x1: Any, x2: Any) -> Any:
    """Dot product of the flattened inputs."""
    a, b = promote(x1, x2)
    return F.sum(F.reshape(a, (-1,)) * F.reshape(b, (-1,)))


@keras_op('x1', 'x2')
def cross(x1: Any, x2: Any, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: Optional[int] = None) -> Any:
    """Cross product of 3-vectors along the last axis."""
    a, b = promote(x1, x2, floating=True)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = F.moveaxis(a, axisa, -1), F.moveaxis(b, axisb, -1)
    a, b = _broadcast2(a, b)
    if a.shape[-1] != 3:
        raise ValueError(f'keras.ops.cross: expected vectors of size 3, got shape {a.shape}')
    ax = [a[..., i] for i in range(3)]
    bx = [b[..., i] for i in range(3)]
    c = F.stack([ax[1] * bx[2] - ax[2] * bx[1], ax[2] * bx[0] - ax[0] * bx[2],
                 ax[0] * bx[1] - ax[1] * bx[0]], axis=-1)
    return F.moveaxis(c, -1, axisc)


@keras_op('*operands', name='einsum')
def einsum(subscripts: str, *operands: Any) -> Any:
    """Einstein summation, e.g. ``einsum('bij,bjk->bik', a, b)``."""
    ops = promote(*operands, floating=True)
    return F.einsum(subscripts, *ops)


# -- shape manipulation ---------------------------------------------------------------------

@keras_op('x')
def reshape(x: Any, newshape: Any) -> Any:
    """``x`` with shape ``newshape`` (one entry may be -1)."""
    if isinstance(newshape, (int, numpy.integer)):
        newshape = (int(newshape),)
    return F.reshape(x, tuple(int(s) for s in newshape))


@keras_op('x')
def ravel(x: Any) -> Any:
    """The flattened array."""
    return F.reshape(x, (-1,))


@keras_op('x')
def transpose(x: Any, axes: Optional[Sequence[int]] = None) -> Any:
    """Permute axes (reverse them when ``axes`` is ``None``)."""
    return F.transpose(x, None if axes is None else tuple(axes))


@keras_op('x')
def moveaxis(x: Any, source: Any, destination: Any) -> Any:
    """Move axes to new positions."""
    return F.moveaxis(x, source, destination)


@keras_op('x')
def swapaxes(x: Any, axis1: int, axis2: int) -> Any:
    """Exchange two axes."""
    return F.swapaxes(x, axis1, axis2)


@keras_op('x')
def expand_dims(x: Any, axis: Any) -> Any:
    """Insert axes of size 1 at ``axis`` (an int or a tuple)."""
    axes = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    ndim = x.ndim + len(axes)
    for a in sorted(int(a) % ndim for a in axes):
        x = F.expand_dims(x, a)
    return x


@keras_op('x')
def squeeze(x: Any, axis: Any = None) -> Any:
    """Remove axes of size 1 (the given ones, or all)."""
    if axis is not None and not isinstance(axis, (int, numpy.integer)):
        axis = tuple(axis)
    return F.squeeze(x, axis)


@keras_op('x')
def broadcast_to(x: Any, shape: Any) -> Any:
    """``x`` broadcast to ``shape``."""
    return F.broadcast_to(x, tuple(shape))


@keras_op('*xs')
def concatenate(xs: Sequence[Any], axis: int = 0) -> Any:
    """Join tensors along an existing axis (``axis=None`` flattens them first)."""
    xs = promote(*xs)
    if axis is None:
        xs, axis = [F.reshape(x, (-1,)) for x in xs], 0
    return F.concat(xs, axis=axis)


@keras_op('*x')
def stack(x: Sequence[Any], axis: int = 0) -> Any:
    """Join tensors along a new axis."""
    return F.stack(promote(*x), axis=axis)


@keras_op('*xs')
def vstack(xs: Sequence[Any]) -> Any:
    """Stack along the first axis (1-D tensors become rows)."""
    xs = [F.reshape(x, (1, -1)) if x.ndim < 2 else x for x in promote(*xs)]
    return F.concat(xs, axis=0)


@keras_op('*xs')
def hstack(xs: Sequence[Any]) -> Any:
    """Stack along the second axis (the first for 1-D tensors)."""
    xs = promote(*xs)
    return F.concat(xs, axis=0 if xs[0].ndim == 1 else 1)


@keras_op('x1', 'x2')
def append(x1: Any, x2: Any, axis: Optional[int] = None) -> Any:
    """``x2`` appended to ``x1`` (both flattened when ``axis`` is ``None``)."""
    a, b = promote(x1, x2)
    if axis is None:
        a, b, axis = F.reshape(a, (-1,)), F.reshape(b, (-1,)), 0
    return F.concat([a, b], axis=axis)


@keras_op('x')
def split(x: Any, indices_or_sections: Any, axis: int = 0) -> Any:
    """A list of pieces: ``indices_or_sections`` equal parts, or cut at the given indices."""
    if not isinstance(indices_or_sections, (int, numpy.integer)):
        indices_or_sections = [int(i) for i in indices_or_sections]
    elif x.shape[axis] % int(indices_or_sections):
        raise ValueError(f'keras.ops.split: axis {axis} of size {x.shape[axis]} cannot be split '
                         f'into {indices_or_sections} equal parts')
    return list(F.split_axis(x, indices_or_sections, axis, force_tuple=True))


@keras_op('x')
def tile(x: Any, repeats: Any) -> Any:
    """``x`` repeated ``repeats`` times along each axis."""
    return F.tile(x, repeats)


@keras_op('x')
def repeat(x: Any, repeats: Any, axis: Optional[int] = None) -> Any:
    """Each element repeated (along ``axis``, or of the flattened array)."""
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    return F.repeat(x, repeats, axis)


@keras_op('x')
def flip(x: Any, axis: Any = None) -> Any:
    """Reverse the order along ``axis`` (all axes when ``None``)."""
    axes = range(x.ndim) if axis is None else axis_tuple(axis, x.ndim)
    for a in axes:
        x = F.flip(x, a)
    return x


@keras_op('x')
def roll(x: Any, shift: Any, axis: Any = None) -> Any:
    """Shift elements cyclically along ``axis`` (of the flattened array when ``None``)."""
    if axis is None:
        return F.reshape(roll.impl(F.reshape(x, (-1,)), shift, 0), x.shape)
    shifts = (shift,) if isinstance(shift, (int, numpy.integer)) else tuple(shift)
    axes = axis_tuple(axis, x.ndim)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    for s, a in zip(shifts, axes):
        n = x.shape[a]
        if n:
            index = (numpy.arange(n) - int(s)) % n
            x = F.get_item(x, (slice(None),) * a + (x.xp.asarray(index),))
    return x


@keras_op('x')
def pad(x: Any, pad_width: Any, mode: str = 'constant', constant_values: Any = None) -> Any:
    """Pad with ``constant_values`` (or ``'reflect'``/``'symmetric'``/``'edge'``...)."""
    widths = numpy.broadcast_to(numpy.asarray(pad_width, dtype=int), (x.ndim, 2))
    width = tuple(tuple(int(v) for v in w) for w in widths)
    if mode == 'constant':
        return F.pad(x, width, mode='constant',
                     constant_values=0 if constant_values is None else constant_values)
    if constant_values is not None:
        raise ValueError(f'keras.ops.pad: constant_values is only for mode="constant", '
                         f'got mode={mode!r}')
    return F.pad(x, width, mode=mode)


@keras_op('x')
def get_item(x: Any, key: Any) -> Any:
    """``x[key]``."""
    return F.get_item(x, _arr(key))


@keras_op('x', 'indices')
def take(x: Any, indices: Any, axis: Optional[int] = None) -> Any:
    """Elements at ``indices`` along ``axis`` (of the flattened array when ``None``);
    negative indices count from the end."""
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    axis %= x.ndim
    idx = indices.array.astype('int64') % builtins.max(x.shape[axis], 1) \
        if isinstance(indices, Variable) else int(indices) % x.shape[axis]
    return F.get_item(x, (slice(None),) * axis + (idx,))


@keras_op('x', 'indices')
def take_along_axis(x: Any, indices: Any, axis: Optional[int] = None) -> Any:
    """Elements picked along ``axis`` by ``indices`` (NumPy's ``take_along_axis``)."""
    if axis is None:
        x, axis = F.reshape(x, (-1,)), 0
    xp = x.xp
    axis %= x.ndim
    idx = indices.array.astype('int64') % builtins.max(x.shape[axis], 1)
    # broadcast indices and x against each other, except along ``axis``
    shape = list(numpy.broadcast_shapes(
        tuple(1 if i == axis else s for i, s in enumerate(x.shape)),
        tuple(1 if i == axis else s for i, s in enumerate(idx.shape))))
    x_shape = tuple(x.shape[axis] if i == axis else s for i, s in enumerate(shape))
    idx_shape = tuple(idx.shape[axis] if i == axis else s for i, s in enumerate(shape))
    if tuple(x.shape) != x_shape:
        x = F.broadcast_to(x, x_shape)
    idx = xp.broadcast_to(idx, idx_shape)
    grids = index_grids(xp, idx_shape)
    grids[axis] = idx
    return F.get_item(x, tuple(grids))


@keras_op('condition', 'x1', 'x2')
def where(condition: Any, x1: Any = None, x2: Any = None) -> Any:
    """``x1`` where ``condition`` holds, else ``x2`` (``nonzero(condition)`` without them)."""
    cond = _arr(condition).astype(bool)
    if x1 is None and x2 is None:
        return tuple(i.astype('int32') for i in xp_of(condition).nonzero(cond))
    if x1 is None or x2 is None:
        raise ValueError('keras.ops.where: give both x1 and x2, or neither')
    a, b = promote(x1, x2)
    if result_dtype(a, b).kind != 'f':
        return xp_of(condition, a, b).where(cond, _arr(a), _arr(b))
    a, b = _as_var(a, b), _as_var(b, a)
    a, b = _broadcast2(a, b)
    shape = numpy.broadcast_shapes(cond.shape, a.shape)
    if tuple(a.shape) != shape:
        a, b = F.broadcast_to(a, shape), F.broadcast_to(b, shape)
    return F.where(xp_of(a).broadcast_to(cond, shape), a, b)


@keras_op('x')
def nonzero(x: Any) -> Any:
    """Indices of the non-zero elements, one array per axis (int32)."""
    return tuple(i.astype('int32') for i in x.xp.nonzero(x.array))


@keras_op('x')
def sort(x: Any, axis: int = -1) -> Any:
    """Sorted along ``axis``."""
    if not is_float(x):
        return x.xp.sort(x.array, axis=axis)
    idx = x.xp.argsort(x.array, axis=axis)
    return take_along_axis.impl(x, Variable(idx), axis)


@keras_op('x')
def argsort(x: Any, axis: int = -1) -> Any:
    """Indices that sort ``x`` along ``axis`` (int32)."""
    if axis is None:
        return x.xp.argsort(x.array.reshape(-1), kind='stable').astype('int32')
    return x.xp.argsort(x.array, axis=axis, kind='stable').astype('int32')


@keras_op('x')
def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Diagonal of the matrices spanned by ``axis1`` and ``axis2``."""
    return F.diagonal(x, offset, axis1, axis2)


@keras_op('x')
def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """Sum of a diagonal."""
    if not is_float(x):
        return x.xp.trace(x.array, offset, axis1, axis2)
    return F.sum(F.diagonal(x, offset, axis1, axis2), axis=-1)


@keras_op('x')
def diag(x: Any, k: int = 0) -> Any:
    """The ``k``-th diagonal of a matrix, or a square matrix with a vector on it."""
    if x.ndim == 2:
        return F.diagonal(x, k, 0, 1)
    if x.ndim != 1:
        raise ValueError(f'keras.ops.diag: expected a 1-D or 2-D input, got shape {x.shape}')
    xp = x.xp
    n = x.shape[0] + builtins.abs(k)
    rows = xp.arange(x.shape[0]) + builtins.max(-k, 0)
    cols = xp.arange(x.shape[0]) + builtins.max(k, 0)
    if not is_float(x):
        out = xp.zeros((n, n), x.dtype)
        out[rows, cols] = x.array
        return out
    return F.scatter_add(xp.zeros((n, n), x.dtype), (rows, cols), x)


def _tri_mask(xp: Any, n: int, m: int, k: int, upper: bool) -> Any:
    mask = xp.tri(n, m, k - 1 if upper else k, dtype=bool)
    return ~mask if upper else mask


@keras_op('x')
def tril(x: Any, k: int = 0) -> Any:
    """Zero above the ``k``-th diagonal of the last two axes."""
    mask = _tri_mask(x.xp, x.shape[-2], x.shape[-1], k, upper=False)
    return _masked(x, mask)


@keras_op('x')
def triu(x: Any, k: int = 0) -> Any:
    """Zero below the ``k``-th diagonal of the last two axes."""
    mask = _tri_mask(x.xp, x.shape[-2], x.shape[-1], k, upper=True)
    return _masked(x, mask)


def _masked(x: Any, mask: Any) -> Any:
    if not is_float(x):
        return x.xp.where(mask, x.array, 0).astype(x.dtype)
    return x * mask.astype(x.dtype)


# -- creation -------------------------------------------------------------------------------

def _dtype(dtype: Any, default: Any = FLOATX) -> numpy.dtype:
    return numpy.dtype(default if dtype is None else dtype)


def zeros(shape: Any, dtype: Any = None) -> numpy.ndarray:
    """An array of zeros (floatx by default)."""
    return numpy.zeros(shape, _dtype(dtype))


def ones(shape: Any, dtype: Any = None) -> numpy.ndarray:
    """An array of ones (floatx by default)."""
    return numpy.ones(shape, _dtype(dtype))


def empty(shape: Any, dtype: Any = None) -> numpy.ndarray:
    """An array of ``shape`` (filled with zeros, unlike NumPy's, so results are reproducible)."""
    return numpy.zeros(shape, _dtype(dtype))


def full(shape: Any, fill_value: Any, dtype: Any = None) -> numpy.ndarray:
    """An array of ``shape`` filled with ``fill_value``."""
    if dtype is None:
        dtype = dtype_of(fill_value) if isinstance(fill_value, (bool, int, float)) else \
            numpy.asarray(array_of(fill_value)).dtype
    return numpy.full(shape, array_of(fill_value), _dtype(dtype))


def _like(name: str, value: Any) -> Any:
    def impl(x: Any, dtype: Any = None) -> Any:
        return x.xp.full(x.shape, value, _dtype(dtype, x.dtype))
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = f'An array of {value} with the shape (and dtype unless given) of ``x``.'
    return keras_op('x')(impl)


zeros_like = _like('zeros_like', 0)
ones_like = _like('ones_like', 1)


@keras_op('x')
def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Any:
    """An array of ``fill_value`` with the shape (and dtype unless given) of ``x``."""
    return x.xp.full(x.shape, array_of(fill_value), _dtype(dtype, x.dtype))


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> numpy.ndarray:
    """Evenly spaced values in ``[start, stop)``; int32 for integers, floatx for floats."""
    if dtype is None:
        numbers = [v for v in (start, stop, step) if v is not None]
        dtype = FLOATX if builtins.any(isinstance(v, float) or numpy.asarray(v).dtype.kind ==
                                       'f' for v in numbers) else 'int32'
    if stop is None:
        start, stop = 0, start
    return numpy.arange(start, stop, step, dtype=dtype)


def linspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True,
             retstep: bool = False, dtype: Any = None, axis: int = 0) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    first, last = array_of(start), array_of(stop)
    if retstep:  # two calls so that NumPy's overloads see a literal retstep
        values, step = numpy.linspace(first, last, num, endpoint=endpoint, retstep=True,
                                      axis=axis)
        return values.astype(_dtype(dtype)), step
    out = numpy.linspace(first, last, num, endpoint=endpoint, retstep=False, axis=axis)
    return out.astype(_dtype(dtype))


def logspace(start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: float = 10,
             dtype: Any = None, axis: int = 0) -> numpy.ndarray:
    """``base ** linspace(start, stop, num)``."""
    return numpy.logspace(start, stop, num, endpoint=endpoint, base=base,
                          axis=axis).astype(_dtype(dtype))


def eye(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = None) -> numpy.ndarray:
    """Ones on the ``k``-th diagonal of an ``N x M`` matrix."""
    return numpy.eye(N, M, k, dtype=_dtype(dtype))


def identity(n: int, dtype: Any = None) -> numpy.ndarray:
    """The ``n x n`` identity matrix."""
    return numpy.eye(n, dtype=_dtype(dtype))


def tri(N: int, M: Optional[int] = None, k: int = 0, dtype: Any = None) -> numpy.ndarray:
    """Ones at and below the ``k``-th diagonal."""
    return numpy.tri(N, M, k, dtype=_dtype(dtype))


@keras_op('x')
def array(x: Any, dtype: Any = None) -> Any:
    """``x`` as a tensor (of ``dtype``)."""
    return x if dtype is None else cast(x, dtype)


@keras_op('x')
def copy(x: Any) -> Any:
    """A copy of ``x``."""
    return F.identity(x) if is_float(x) else x.array.copy()


# -- misc -----------------------------------------------------------------------------------

@keras_op('x')
def size(x: Any) -> Any:
    """Number of elements."""
    return int(x.size)


@keras_op('x')
def ndim(x: Any) -> Any:
    """Number of axes."""
    return int(x.ndim)


@keras_op('x')
def bincount(x: Any, weights: Any = None, minlength: int = 0) -> Any:
    """Occurrences of each non-negative integer in a 1-D ``x`` (no gradient)."""
    xp = x.xp
    w = None if weights is None else _arr(weights)
    return xp.bincount(x.array, weights=w, minlength=minlength)


@keras_op('x')
def digitize(x: Any, bins: Any) -> Any:
    """Index of the bin of each element (int32)."""
    return x.xp.digitize(x.array, x.xp.asarray(_arr(bins))).astype('int32')


def meshgrid(*x: Any, indexing: str = 'xy') -> list:
    """Coordinate matrices from coordinate vectors."""
    # cast: NumPy checks the value ('xy' or 'ij') itself.
    mode = typing.cast(Literal['xy', 'ij'], indexing)
    return list(numpy.meshgrid(*[numpy.asarray(array_of(v)) for v in x], indexing=mode))


@keras_op('x')
def median(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Median over ``axis`` (gradient flows to the middle element(s))."""
    return quantile.impl(x, 0.5, axis=axis, keepdims=keepdims)


@keras_op('x')
def quantile(x: Any, q: Any, axis: Any = None, method: str = 'linear',
             keepdims: bool = False) -> Any:
    """The ``q``-th quantile(s) over ``axis`` (linear interpolation; differentiable)."""
    if method != 'linear':
        raise ValueError(f"keras.ops.quantile: only method='linear' is supported, got "
                         f'{method!r}')
    x = to_float(x)
    ndim = x.ndim
    axes = tuple(range(ndim)) if axis is None else axis_tuple(axis, ndim)
    rest = [a for a in range(ndim) if a not in axes]
    moved = F.transpose(x, tuple(rest) + axes)
    flat = F.reshape(moved, tuple(x.shape[a] for a in rest) + (-1,))
    n = flat.shape[-1]
    srt = sort.impl(flat, -1)
    qs = numpy.asarray(_arr(q), dtype='float64')
    pos = qs.reshape(-1) * (n - 1)
    lo = numpy.floor(pos).astype(int)
    hi = numpy.minimum(lo + 1, n - 1)
    frac = (pos - lo).astype(x.dtype)
    vals = []
    for i in range(len(pos)):
        a, b = srt[..., int(lo[i])], srt[..., int(hi[i])]
        vals.append(a + (b - a) * float(frac[i]))
    out = F.stack(vals, axis=0)
    if keepdims:
        shape = tuple(1 if a in axes else s for a, s in enumerate(x.shape))
        out = F.reshape(out, (len(vals),) + shape)
    if qs.ndim == 0:
        out = out[0]
    return out


@keras_op('*condlist', '*choicelist')
def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """From the first true condition's choice, else ``default``."""
    choices = promote(*choicelist)
    out = choices[-1] * 0 + default
    for cond, choice in reversed(list(zip(condlist, choices))):
        out = where.impl(cond, choice, out)
    return out


# -- less common NumPy ops ----------------------------------------------------------------

cbrt = _unary('cbrt', lambda x: F.sign(x) * F.absolute(x) ** (1.0 / 3.0),
              doc='Cube root (real, sign kept).')
deg2rad = _unary('deg2rad', lambda x: x * float(numpy.pi / 180.0))
hypot = _binary('hypot', lambda a, b: F.sqrt(F.square(_as_var(a, b)) + F.square(_as_var(b, a))),
                floating=True, doc='``sqrt(x1^2 + x2^2)``.')
logaddexp2 = _binary('logaddexp2', lambda a, b: F.logsumexp(F.stack(_broadcast2(
    _as_var(a, b) * float(numpy.log(2.0)), _as_var(b, a) * float(numpy.log(2.0)))), axis=0)
    / float(numpy.log(2.0)), floating=True, doc='``log2(2^x1 + 2^x2)``, computed stably.')
heaviside = _binary('heaviside', lambda a, b: F.where(
    a.array > 0, _ones_as(a), F.where(a.array < 0, _ones_as(a) * 0, F.broadcast_to(
        _as_var(b, a), a.shape))), floating=True, doc='Step function; ``x2`` where ``x1 == 0``.')
gcd = _binary('gcd', None, lambda xp, a, b: xp.gcd(a, b), doc='Greatest common divisor.')
lcm = _binary('lcm', None, lambda xp, a, b: xp.lcm(a, b), doc='Least common multiple.')
bitwise_and = _binary('bitwise_and', None, lambda xp, a, b: xp.bitwise_and(a, b))
bitwise_or = _binary('bitwise_or', None, lambda xp, a, b: xp.bitwise_or(a, b))
bitwise_xor = _binary('bitwise_xor', None, lambda xp, a, b: xp.bitwise_xor(a, b))
left_shift = _binary('left_shift', None, lambda xp, a, b: xp.left_shift(a, b))
right_shift = _binary('right_shift', None, lambda xp, a, b: xp.right_shift(a, b))
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def _ones_as(a: Any) -> Variable:
    return const(a.xp.ones(a.shape, a.dtype), a)


@keras_op('x')
def signbit(x: Any) -> Any:
    """True where the sign bit is set."""
    return x.xp.signbit(x.array)


@keras_op('x')
def bitwise_invert(x: Any) -> Any:
    """Bitwise NOT of integers (logical NOT of booleans)."""
    return x.xp.invert(x.array)


bitwise_not = bitwise_invert


@keras_op('x1', 'x2')
def ldexp(x1: Any, x2: Any) -> Any:
    """``x1 * 2 ** x2``."""
    a = to_float(x1)
    return a * (2.0 ** _arr(x2)).astype(a.dtype)


@keras_op('x1', 'x2')
def nextafter(x1: Any, x2: Any) -> Any:
    """The next float after ``x1`` towards ``x2`` (no gradient)."""
    a, b = promote(x1, x2, floating=True)
    return xp_of(a, b).nextafter(_arr(a), _arr(b))


@keras_op('x')
def real(x: Any) -> Any:
    """The real part: ``x`` itself (chainlet tensors are real)."""
    return x


conj = conjugate = real


@keras_op('x')
def imag(x: Any) -> Any:
    """The imaginary part: zeros (chainlet tensors are real)."""
    return x.xp.zeros(x.shape, x.dtype)


@keras_op('x')
def angle(x: Any) -> Any:
    """The argument of a real number: 0 or pi."""
    x = to_float(x)
    return x.xp.where(x.array < 0, numpy.pi, 0.0).astype(x.dtype)


@keras_op('x')
def isreal(x: Any) -> Any:
    """True everywhere (chainlet tensors are real)."""
    return x.xp.ones(x.shape, bool)


@keras_op('x')
def isposinf(x: Any) -> Any:
    """True where ``x`` is +inf."""
    return x.xp.isposinf(x.array) if is_float(x) else x.xp.zeros(x.shape, bool)


@keras_op('x')
def isneginf(x: Any) -> Any:
    """True where ``x`` is -inf."""
    return x.xp.isneginf(x.array) if is_float(x) else x.xp.zeros(x.shape, bool)


@keras_op('x1', 'x2')
def isin(x1: Any, x2: Any, assume_unique: bool = False, invert: bool = False) -> Any:
    """True where an element of ``x1`` occurs in ``x2``."""
    return xp_of(x1, x2).isin(_arr(x1), _arr(x2), invert=invert)


def _nan_reduce(name: str, reducer: Any, fill: float) -> Any:
    def impl(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        if not is_float(x):
            return reducer.impl(x, axis, keepdims)
        xp = x.xp
        nan = xp.isnan(x.array)
        filled = F.where(nan, const(xp.full(x.shape, fill, x.dtype), x), x)
        return reducer.impl(filled, axis, keepdims)
    impl.__name__ = name
    impl.__qualname__ = name
    impl.__doc__ = f'``{reducer.op_name}`` ignoring NaNs.'
    return keras_op('x')(impl)


nansum = _nan_reduce('nansum', sum, 0.0)
nanprod = _nan_reduce('nanprod', prod, 1.0)
nanmax = _nan_reduce('nanmax', max, -numpy.inf)
nanmin = _nan_reduce('nanmin', min, numpy.inf)


@keras_op('x')
def nanmean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Mean ignoring NaNs."""
    x = to_float(x)
    xp = x.xp
    nan = xp.isnan(x.array)
    total = sum.impl(F.where(nan, const(xp.zeros(x.shape, x.dtype), x), x), axis, keepdims)
    count = xp.sum(~nan, axis=axis_tuple(axis, x.ndim), keepdims=keepdims).astype(x.dtype)
    return total / count


@keras_op('x')
def ptp(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    """Range (``max - min``) over ``axis``."""
    return max.impl(x, axis, keepdims) - min.impl(x, axis, keepdims)


@keras_op('x')
def argpartition(x: Any, kth: int, axis: int = -1) -> Any:
    """Indices that partition ``x`` around its ``kth`` element (int32)."""
    return x.xp.argpartition(x.array, kth, axis=axis).astype('int32')


@keras_op('x')
def array_split(x: Any, indices_or_sections: Any, axis: int = 0) -> Any:
    """Like ``split``, but ``n`` sections need not divide the axis evenly."""
    if isinstance(indices_or_sections, (int, numpy.integer)):
        n, size = int(indices_or_sections), x.shape[axis]
        base, extra = divmod(size, n)
        sizes = [base + 1] * extra + [base] * (n - extra)
        indices_or_sections = list(numpy.cumsum(sizes)[:-1])
    return list(F.split_axis(x, [int(i) for i in indices_or_sections], axis, force_tuple=True))


@keras_op('x')
def vsplit(x: Any, indices_or_sections: Any) -> Any:
    """``split`` along the first axis."""
    return split.impl(x, indices_or_sections, 0)


@keras_op('x')
def hsplit(x: Any, indices_or_sections: Any) -> Any:
    """``split`` along the second axis (the first for 1-D tensors)."""
    return split.impl(x, indices_or_sections, 0 if x.ndim == 1 else 1)


@keras_op('*xs')
def dstack(xs: Sequence[Any]) -> Any:
    """Stack along the third axis."""
    out = []
    for x in promote(*xs):
        if x.ndim == 1:
            x = F.reshape(x, (1, -1, 1))
        elif x.ndim == 2:
            x = F.expand_dims(x, 2)
        out.append(x)
    return F.concat(out, axis=2)


@keras_op('x')
def empty_like(x: Any, dtype: Any = None) -> Any:
    """A zero array with the shape (and dtype unless given) of ``x``."""
    return x.xp.zeros(x.shape, _dtype(dtype, x.dtype))


@keras_op('x')
def diagflat(x: Any, k: int = 0) -> Any:
    """A matrix with the flattened ``x`` on its ``k``-th diagonal."""
    return diag.impl(F.reshape(x, (-1,)), k)


@keras_op('array')
def rot90(array: Any, k: int = 1, axes: tuple = (0, 1)) -> Any:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``."""
    x = array
    k %= 4
    a0, a1 = axes
    for _ in range(k):
        x = F.swapaxes(F.flip(x, a1), a0, a1)
    return x


@keras_op('x1', 'x2')
def kron(x1: Any, x2: Any) -> Any:
    """Kronecker product."""
    a, b = promote(x1, x2)
    nd = builtins.max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (nd - a.ndim) + tuple(a.shape))
    b = F.reshape(b, (1,) * (nd - b.ndim) + tuple(b.shape))
    a_shape = [d for s in a.shape for d in (s, 1)]
    b_shape = [d for s in b.shape for d in (1, s)]
    out = F.reshape(a, tuple(a_shape)) * F.reshape(b, tuple(b_shape))
    return F.reshape(out, tuple(sa * sb for sa, sb in zip(a.shape, b.shape)))


@keras_op('x1', 'x2')
def correlate(x1: Any, x2: Any, mode: str = 'valid') -> Any:
    """Cross-correlation of two 1-D tensors (``mode`` 'valid', 'same' or 'full')."""
    a, v = promote(x1, x2, floating=True)
    n, m = a.shape[0], v.shape[0]
    if mode not in ('valid', 'same', 'full'):
        raise ValueError(f"keras.ops.correlate: mode must be 'valid', 'same' or 'full', got "
                         f'{mode!r}')
    swapped = m > n
    if swapped:
        a, v, n, m = v, a, m, n
    left = {'valid': 0, 'same': m // 2, 'full': m - 1}[mode]
    right = {'valid': 0, 'same': m - 1 - m // 2, 'full': m - 1}[mode]
    padded = F.pad(a, ((left, right),)) if left or right else a
    count = padded.shape[0] - m + 1
    index = numpy.arange(count)[:, None] + numpy.arange(m)[None, :]
    out = F.sum(F.get_item(padded, a.xp.asarray(index)) * F.broadcast_to(v, (count, m)), axis=1)
    return F.flip(out, 0) if swapped else out


@keras_op('x')
def corrcoef(x: Any) -> Any:
    """Pearson correlation coefficients between the rows of ``x``."""
    x = to_float(x)
    if x.ndim == 1:
        x = F.reshape(x, (1, -1))
    centered = x - F.broadcast_to(F.mean(x, axis=1, keepdims=True), x.shape)
    cov = F.matmul(centered, centered, transb=True)
    d = F.sqrt(F.diagonal(cov))
    return cov / (F.reshape(d, (-1, 1)) * F.reshape(d, (1, -1)))


@keras_op('y', 'x')
def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> Any:
    """Integral of ``y`` along ``axis`` by the trapezoidal rule."""
    y = to_float(y)
    ax = axis % y.ndim
    hi = tuple(slice(1, None) if i == ax else slice(None) for i in range(y.ndim))
    lo = tuple(slice(None, -1) if i == ax else slice(None) for i in range(y.ndim))
    mid = (y[hi] + y[lo]) / 2.0
    if x is None:
        return F.sum(mid, axis=ax) * float(dx)
    x = cast(x, y.dtype)
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[ax] = x.shape[0] - 1
        widths = F.reshape(x[1:] - x[:-1], tuple(shape))
    else:
        widths = x[hi] - x[lo]
    return F.sum(mid * F.broadcast_to(widths, mid.shape), axis=ax)


@keras_op('sorted_sequence', 'values')
def searchsorted(sorted_sequence: Any, values: Any, side: str = 'left') -> Any:
    """Insertion indices of ``values`` in the 1-D ``sorted_sequence`` (int32)."""
    xp = xp_of(sorted_sequence, values)
    return xp.searchsorted(_arr(sorted_sequence), _arr(values), side=side).astype('int32')


@keras_op('indices')
def unravel_index(indices: Any, shape: Any) -> Any:
    """Flat indices as a tuple of coordinate arrays."""
    return tuple(i.astype('int32') for i in indices.xp.unravel_index(indices.array,
                                                                     tuple(shape)))


@keras_op('x')
def histogram(x: Any, bins: int = 10, range: Any = None) -> Any:
    """``(counts, bin_edges)`` of a 1-D tensor (no gradient)."""
    counts, edges = x.xp.histogram(x.array, bins=bins, range=range)
    return counts.astype('int32'), edges.astype(x.dtype if is_float(x) else FLOATX)


@keras_op('x')
def vander(x: Any, N: Optional[int] = None, increasing: bool = False) -> Any:
    """Vandermonde matrix: columns are powers of ``x``."""
    x = to_float(x)
    n = x.shape[0] if N is None else int(N)
    powers = range(n) if increasing else range(n - 1, -1, -1)
    cols = [F.broadcast_to(_ones_as(x), x.shape) if p == 0 else x ** float(p) for p in powers]
    return F.stack(cols, axis=1) if cols else x.xp.zeros((x.shape[0], 0), x.dtype)


@keras_op('x')
def slogdet(x: Any) -> Any:
    """``(sign, log|det|)`` of (batches of) square matrices."""
    from chainlet.keras.ops.linalg import det
    d = det.impl(to_float(x))
    return d.xp.sign(d.array), F.log(F.absolute(d))


@keras_op('x')
def view(x: Any, dtype: Any = None) -> Any:
    """The same memory read as ``dtype`` (no gradient)."""
    return x.array.view(dtype) if dtype is not None else x.array


def vectorize(pyfunc: Any, *, excluded: Any = None, signature: Any = None) -> Any:
    """``pyfunc`` mapped over the first axis of its tensor arguments (results stacked)."""
    from chainlet.keras.ops.core import map as map_op

    def vectorized(*args: Any) -> Any:
        return map_op(lambda row: pyfunc(*row), tuple(args))
    return vectorized


def _window(name: str, fn: Any) -> Any:
    def window(x: int, *args: Any) -> numpy.ndarray:
        return fn(int(array_of(x)), *args).astype(FLOATX)
    window.__name__ = window.__qualname__ = name
    window.__doc__ = f'The {name} window of ``x`` points (float32).'
    return window


bartlett = _window('bartlett', numpy.bartlett)
blackman = _window('blackman', numpy.blackman)
hamming = _window('hamming', numpy.hamming)
hanning = _window('hanning', numpy.hanning)
kaiser = _window('kaiser', numpy.kaiser)


def _public(names: dict) -> list:
    return sorted(n for n, v in names.items() if not n.startswith('_') and callable(v) and
                  getattr(v, '__module__', None) == __name__)


__all__ = _public(dict(globals())) + ['abs', 'amax', 'amin', 'true_divide', 'conj', 'conjugate',
                                      'bitwise_not', 'bitwise_left_shift',
                                      'bitwise_right_shift']
__all__ = sorted(set(__all__) - {'annotations'})
