"""Arithmetic: neg, add, sub, mul, div, pow, with arrays or scalars on either side.

These are the FunctionNodes behind ``Variable``'s operators, which
:mod:`chainlet.functions._variable_methods` attaches. Array operands broadcast like NumPy and
must share the Variable's dtype; a Python or NumPy scalar operand is cast to the array's dtype,
so ``x * 2.0`` stays float32 for a float32 ``x`` under NumPy 1.26 and 2.x alike. As in Chainer,
a plain array combined with a Variable is a constant and is cast to the Variable's dtype
(``x ** numpy.float64 array`` keeps ``x``'s dtype); two Variables must agree. Node labels are
Chainer's (``'_ + _'``, ``'_ * 2.0'``).
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math.absolute import Absolute, absolute  # noqa: F401  (Chainer's home)
from chainlet.utils.array import sum_to as sum_to_array
from chainlet.variable import Variable

_ndarray = numpy.ndarray
_SCALARS = (int, float, bool, numpy.number, numpy.bool_)
# dtype -> {value: read-only 0-d array}; see _const.
_const_cache: dict = {}
# Exact types for the fast path of the operators; subclasses take the general path.
_TENSOR_TYPES = frozenset((Variable, numpy.ndarray))


def _const(x: Any, value: Any) -> Any:
    """``value`` as a 0-d array of ``x``'s float dtype (cached), or left as a Python scalar.

    NumPy multiplies by a ready 0-d array in half the time it takes to convert a Python float,
    and a 0-d array keeps ``x``'s dtype under NumPy 1.x's value-based casting as well.
    """
    if type(x) is _ndarray:
        cache = _const_cache.get(x.dtype)
        if cache is not None:
            c = cache.get(value)
            if c is not None:
                return c
    return _new_const(x, value)


def _new_const(x: Any, value: Any) -> Any:
    if type(x) is not _ndarray or x.dtype.kind != 'f':
        return value
    c = numpy.array(value, dtype=x.dtype)
    c.flags.writeable = False
    # Zeros are not cached: 0.0 and -0.0 are equal keys, but x * -0.0 is not x * 0.0. NaN is
    # never found again (nan != nan), so it is not kept either.
    if value != 0 and value == value:
        cache = _const_cache.setdefault(x.dtype, {})
        if len(cache) > 4096:
            cache.clear()
        cache[value] = c
    return c


def _convert_value_to_string(value: Any) -> str:
    """How a constant appears in a node label: ``2.0``, ``(-2)``, or ``constant array``."""
    if isinstance(value, Variable):
        value = value.array
    if isinstance(value, (int, float, numpy.number)):
        return f'({value})' if value < 0 else str(value)
    if backend.is_array(value):
        return 'constant array'
    raise ValueError(f'basic_math: expected a scalar, an ndarray or a Variable as a constant, '
                     f'got {type(value).__name__}')


def _sum_to(gx: Variable, shape: tuple) -> Variable:
    if gx.shape == shape:
        return gx
    from chainlet.functions.array.sum_to import sum_to
    return sum_to(gx, shape)


def _check_binary(func: str, a: Any, b: Any) -> None:
    if a.dtype != b.dtype:
        raise type_check.fail(func, 'rhs', f'dtype {a.dtype} (the dtype of lhs)', str(b.dtype))
    if a.shape != b.shape:
        type_check.broadcastable(func, ('lhs', 'rhs'), (a, b))


class Neg(FunctionNode):
    """``-x``."""

    @property
    def label(self) -> str:
        return '__neg__'

    def forward(self, inputs):
        return -inputs[0],

    def backward(self, indexes, grad_outputs):
        return neg(grad_outputs[0]),

    def _backward_arrays(self, indexes, grad_outputs):
        return -grad_outputs[0],


class Add(FunctionNode):
    """Sum of any number of arrays, broadcast together."""

    @property
    def label(self) -> str:
        return '_ + _'

    def _check_arrays(self, in_data):
        if len(in_data) == 2:
            _check_binary('add', in_data[0], in_data[1])
            return
        names = [f'x{i}' for i in range(len(in_data))]
        type_check.same_dtype('add', names, in_data)
        type_check.broadcastable('add', names, in_data)

    def forward(self, inputs):
        if len(inputs) == 2:  # the operator's case
            return inputs[0] + inputs[1],
        y = inputs[0] + inputs[1]
        for x in inputs[2:]:
            if x.shape == y.shape or numpy.broadcast_shapes(y.shape, x.shape) == y.shape:
                y += x  # y is a fresh array here
            else:
                y = y + x
        return y,

    # The inputs' shapes are read from their graph nodes in backward, as in Chainer: keeping
    # them here as well would be three more objects per op for the cyclic GC while the graph
    # lives (a fan-out of a thousand adds spends a fifth of its forward in the collector).
    def backward(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        nodes = self.inputs
        return tuple([_sum_to(gy, nodes[i].shape) for i in indexes])

    def _backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        nodes = self.inputs
        if len(indexes) == 2 and nodes[0].shape == nodes[1].shape == gy.shape:
            return gy, gy  # no broadcasting: the usual case, without the calls
        return tuple([sum_to_array(gy, nodes[i].shape) for i in indexes])


class Sub(FunctionNode):
    """``x0 - x1``."""

    @property
    def label(self) -> str:
        return '_ - _'

    def _check_arrays(self, in_data):
        _check_binary('sub', in_data[0], in_data[1])

    def forward(self, inputs):
        return inputs[0] - inputs[1],

    def backward(self, indexes, grad_outputs):  # the shapes from the nodes, as in Add
        gy = grad_outputs[0]
        nodes = self.inputs
        return tuple([_sum_to(gy if i == 0 else neg(gy), nodes[i].shape) for i in indexes])

    def _backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        nodes = self.inputs
        return tuple([sum_to_array(gy if i == 0 else -gy, nodes[i].shape) for i in indexes])


class Mul(FunctionNode):
    """``x0 * x1``."""

    @property
    def label(self) -> str:
        return '_ * _'

    def _check_arrays(self, in_data):
        _check_binary('mul', in_data[0], in_data[1])

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to(mul(gy, x1), x0.shape))
            else:
                ret.append(_sum_to(mul(gy, x0), x1.shape))
        return tuple(ret)

    def _backward_arrays(self, indexes, grad_outputs):
        x0, x1 = self.inputs[0].data, self.inputs[1].data
        gy = grad_outputs[0]
        return tuple([sum_to_array(gy * x1, x0.shape) if i == 0 else
                      sum_to_array(gy * x0, x1.shape) for i in indexes])


class Div(FunctionNode):
    """``x0 / x1``."""

    @property
    def label(self) -> str:
        return '_ / _'

    def _check_arrays(self, in_data):
        _check_binary('div', in_data[0], in_data[1])

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] / inputs[1],

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy = grad_outputs[0]
        gx0 = div(gy, x1)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to(gx0, x0.shape))
            else:
                ret.append(_sum_to(neg(gx0) * x0 / x1, x1.shape))
        return tuple(ret)


class PowVarVar(FunctionNode):
    """``x0 ** x1``; the gradient for ``x1`` uses ``log(x0)`` (``x0`` must be positive)."""

    @property
    def label(self) -> str:
        return '_ ** _'

    def _check_arrays(self, in_data):
        _check_binary('pow', in_data[0], in_data[1])

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        return inputs[0] ** inputs[1],

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.exponential import log
        x0, x1 = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy = grad_outputs[0]
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(_sum_to(gy * x1 * x0 ** (x1 - 1), x0.shape))
            else:
                ret.append(_sum_to(gy * y * log(x0), x1.shape))
        return tuple(ret)


class AddConstant(FunctionNode):
    """``x + c`` for a scalar ``c``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ + {_convert_value_to_string(self.value)}'

    def forward(self, inputs):
        x, = inputs
        return x + _const(x, self.value),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0],

    def _backward_arrays(self, indexes, grad_outputs):
        return grad_outputs[0],


class SubFromConstant(FunctionNode):
    """``c - x`` for a scalar ``c``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'{_convert_value_to_string(self.value)} - _'

    def forward(self, inputs):
        x, = inputs
        return _const(x, self.value) - x,

    def backward(self, indexes, grad_outputs):
        return neg(grad_outputs[0]),

    def _backward_arrays(self, indexes, grad_outputs):
        return -grad_outputs[0],


class MulConstant(FunctionNode):
    """``x * c`` for a scalar ``c``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ * {_convert_value_to_string(self.value)}'

    def forward(self, inputs):
        x, = inputs
        return x * _const(x, self.value),

    def backward(self, indexes, grad_outputs):
        return MulConstant(self.value).apply(grad_outputs)

    def _backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        return gy * _const(gy, self.value),


class DivByConstant(FunctionNode):
    """``x / c`` for a scalar ``c`` (kept apart from ``x * (1/c)`` so results match NumPy)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ / {_convert_value_to_string(self.value)}'

    def forward(self, inputs):
        x, = inputs
        return x / _const(x, self.value),

    def backward(self, indexes, grad_outputs):
        return DivByConstant(self.value).apply(grad_outputs)


class DivFromConstant(FunctionNode):
    """``c / x`` for a scalar ``c``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'{_convert_value_to_string(self.value)} / _'

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return _const(x, self.value) / x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return MulConstant(-self.value).apply((grad_outputs[0] / (x * x),))


class PowVarConst(FunctionNode):
    """``x ** c`` for a scalar ``c``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'_ ** {_convert_value_to_string(self.value)}'

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return _pow_const(x, self.value),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return PowVarConstGrad(self.value).apply((x, grad_outputs[0]))

    def _backward_arrays(self, indexes, grad_outputs):
        return _pow_grad(self._input_array(0), grad_outputs[0], self.value),


class PowVarConstGrad(FunctionNode):
    """``gx = gy * c * x ** (c - 1)`` (inputs ``x``, ``gy``) in one node; differentiable in both
    (a double backward through ``x ** c`` applies one function, not three)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return _pow_grad(inputs[0], inputs[1], self.value),

    def backward(self, indexes, grad_outputs):
        x, gy = self.get_retained_inputs()
        ggx, c = grad_outputs[0], self.value
        ret = []
        for i in indexes:
            if i == 1:
                ret.append(PowVarConstGrad(c).apply((x, ggx))[0])
            elif c == 1:  # c * x ** 0: no gradient for x (and no 0 * x ** -1 at x = 0)
                ret.append(None)
            else:
                ret.append(PowVarConstGrad(c - 1).apply((x, ggx * gy))[0] * c)
        return tuple(ret)

    def _backward_arrays(self, indexes, grad_outputs):
        # backward's arithmetic on arrays (the same operations, so the same bits)
        x, gy = self._input_array(0), self._input_array(1)
        ggx, c = grad_outputs[0], self.value
        return tuple([_pow_grad(x, ggx, c) if i == 1 else None if c == 1 else
                      _pow_grad(x, ggx * gy, c - 1) * _const(x, c) for i in indexes])


def _pow_const(x: Any, value: Any) -> Any:
    if value == 3 and x.dtype.kind == 'f':
        # The C pow() behind ``x ** 3`` costs ~60x two multiplies (NumPy special-cases only
        # 2, 0.5, -1 and friends); the product is within two ulps of pow (PyTorch does this).
        return x * x * x
    if value == 2 and type(x) is _ndarray:
        # NumPy squares for a Python 2 but calls pow() for the 0-d array _const gives;
        # x * x is the same correctly rounded square at half the cost.
        return x * x
    return x ** _const(x, value)


def _pow_grad(x: Any, gy: Any, c: Any) -> Any:
    """``gy * c * x ** (c - 1)``, in the order of operations the gradient always had."""
    if c == 2:
        return (gy * x) * _const(x, 2)
    return gy * (_pow_const(x, c - 1) * _const(x, c))


class PowConstVar(FunctionNode):
    """``c ** x`` for a scalar ``c``."""

    def __init__(self, value: Any) -> None:
        self.value = value

    @property
    def label(self) -> str:
        return f'{_convert_value_to_string(self.value)} ** _'

    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return _const(x, self.value) ** x,

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return MulConstant(float(numpy.log(self.value))).apply((grad_outputs[0] * y,))


# -- public wrappers and operator dispatch --

def _is_scalar(v: Any) -> bool:
    return isinstance(v, _SCALARS) and not isinstance(v, numpy.ndarray)


def _scalar(v: Any) -> Any:
    return v.item() if isinstance(v, numpy.generic) else v


def _as_constant_of(var: Any, other: Any) -> Any:
    """``other`` cast to ``var``'s dtype when ``var`` is a Variable and ``other`` a plain array.

    Chainer treats an array next to a Variable as a constant of the Variable's dtype, so mixed
    dtypes there do not raise; two Variables (or two arrays) are left as they are.
    """
    if type(var) is not Variable and not isinstance(var, Variable):
        return other
    if backend.is_array(other) and other.dtype != var.dtype:
        return other.astype(var.dtype)
    return other


def _operand(func: str, v: Any) -> Any:
    if isinstance(v, Variable) or backend.is_array(v):
        return v
    raise TypeError(f'{func}: unsupported operand of type {type(v).__name__}; expected a '
                    f'Variable, an ndarray or a scalar')


def neg(x: Any) -> Variable:
    """Elementwise negation ``-x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.neg(np.array([1.0, -2.0])).array
        array([-1.,  2.])
    """
    return Neg().apply((x,))[0]


def add(*xs: Any) -> Variable:
    """Elementwise sum of any number of Variables or arrays, with broadcasting.

    Args:
        *xs: Two or more operands of the same dtype (scalars are allowed in the two-operand
            form).

    Returns:
        Variable of the broadcast shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.add(np.ones(2), np.ones(2), np.ones(2)).array
        array([3., 3.])
    """
    if len(xs) == 2:
        return add2(*xs)
    if len(xs) < 2:
        if len(xs) == 1:
            return xs[0] if isinstance(xs[0], Variable) else Variable(xs[0], requires_grad=False)
        raise TypeError('add: expected at least one operand')
    return Add().apply(tuple(_operand('add', x) for x in xs))[0]


def add2(lhs: Any, rhs: Any) -> Variable:
    """``lhs + rhs`` (:func:`add` of two operands; ``Variable.__add__``)."""
    tl, tr = type(lhs), type(rhs)
    if tl in _TENSOR_TYPES and tr in _TENSOR_TYPES and (
            tl is tr or (lhs._data if tl is Variable else lhs).dtype is
            (rhs._data if tr is Variable else rhs).dtype):
        return Add().apply((lhs, rhs))[0]
    if tr is float or tr is int:  # a Python number: the common case
        return AddConstant(rhs).apply((lhs,))[0]
    if _is_scalar(rhs):
        return AddConstant(_scalar(rhs)).apply((lhs,))[0]
    if _is_scalar(lhs):
        return AddConstant(_scalar(lhs)).apply((rhs,))[0]
    rhs = _as_constant_of(lhs, rhs)
    lhs = _as_constant_of(rhs, lhs)
    return Add().apply((_operand('add', lhs), _operand('add', rhs)))[0]


def sub(lhs: Any, rhs: Any) -> Variable:
    """Elementwise ``lhs - rhs`` with broadcasting; either side may be a scalar."""
    if _is_scalar(rhs):
        return AddConstant(-_scalar(rhs)).apply((lhs,))[0]
    if _is_scalar(lhs):
        return SubFromConstant(_scalar(lhs)).apply((rhs,))[0]
    rhs = _as_constant_of(lhs, rhs)
    lhs = _as_constant_of(rhs, lhs)
    return Sub().apply((_operand('sub', lhs), _operand('sub', rhs)))[0]


def mul(lhs: Any, rhs: Any) -> Variable:
    """Elementwise ``lhs * rhs`` with broadcasting; either side may be a scalar.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.array([1.0, 2.0], np.float32))
        >>> (x * 2.0).dtype
        dtype('float32')
    """
    tl, tr = type(lhs), type(rhs)
    # Inline dtype test (no Variable property, no call): operators run it on every use. NumPy's
    # builtin dtypes are singletons; another equal dtype object only takes the slower path.
    if tl in _TENSOR_TYPES and tr in _TENSOR_TYPES and (
            tl is tr or (lhs._data if tl is Variable else lhs).dtype is
            (rhs._data if tr is Variable else rhs).dtype):
        return Mul().apply((lhs, rhs))[0]
    if tr is float or tr is int:  # a Python number: the common case
        return MulConstant(rhs).apply((lhs,))[0]
    if _is_scalar(rhs):
        return MulConstant(_scalar(rhs)).apply((lhs,))[0]
    if _is_scalar(lhs):
        return MulConstant(_scalar(lhs)).apply((rhs,))[0]
    rhs = _as_constant_of(lhs, rhs)
    lhs = _as_constant_of(rhs, lhs)
    return Mul().apply((_operand('mul', lhs), _operand('mul', rhs)))[0]


def div(lhs: Any, rhs: Any) -> Variable:
    """Elementwise ``lhs / rhs`` with broadcasting; either side may be a scalar."""
    if _is_scalar(rhs):
        return DivByConstant(_scalar(rhs)).apply((lhs,))[0]
    if _is_scalar(lhs):
        return DivFromConstant(_scalar(lhs)).apply((rhs,))[0]
    rhs = _as_constant_of(lhs, rhs)
    lhs = _as_constant_of(rhs, lhs)
    return Div().apply((_operand('div', lhs), _operand('div', rhs)))[0]


def pow(lhs: Any, rhs: Any) -> Variable:  # noqa: A001 - Chainer's name
    """Elementwise ``lhs ** rhs``; either side may be a scalar."""
    if type(rhs) is int or type(rhs) is float:  # a Python number: the common case
        return PowVarConst(rhs).apply((lhs,))[0]
    if _is_scalar(rhs):
        return PowVarConst(_scalar(rhs)).apply((lhs,))[0]
    if _is_scalar(lhs):
        return PowConstVar(_scalar(lhs)).apply((rhs,))[0]
    rhs = _as_constant_of(lhs, rhs)
    lhs = _as_constant_of(rhs, lhs)
    return PowVarVar().apply((_operand('pow', lhs), _operand('pow', rhs)))[0]


def floordiv(lhs: Any, rhs: Any) -> Variable:
    """Elementwise ``floor(lhs / rhs)`` (``//``); either side may be a scalar.

    As in Chainer it is ``floor`` of the quotient, so its gradient is zero.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.math.basic_math.floordiv(np.array([7.0, -7.0]), 2.0).array
        array([ 3., -4.])
    """
    from chainlet.functions.math.rounding import floor
    return floor(div(lhs, rhs))


def rfloordiv(x: Any, other: Any) -> Variable:
    """``other // x``: the reflected :func:`floordiv`, for ``Variable.__rfloordiv__``."""
    return floordiv(other, x)


def matmul(lhs: Any, rhs: Any) -> Variable:
    """``lhs @ rhs`` for ``Variable.__matmul__``: a plain array next to a Variable is a constant
    of the Variable's dtype, as for the other operators (:func:`chainlet.functions.matmul`
    itself promotes two float dtypes)."""
    from chainlet.functions.math.matmul import matmul as _matmul
    rhs = _as_constant_of(lhs, rhs)
    lhs = _as_constant_of(rhs, lhs)
    return _matmul(lhs, rhs)


def rmatmul(x: Any, other: Any) -> Variable:
    """``other @ x``: the reflected :func:`matmul`, for ``Variable.__rmatmul__``."""
    return matmul(other, x)


def reflect(op: Any) -> Any:
    """``op`` with its operands swapped: ``reflect(sub)(x, c)`` is ``c - x``."""
    def reflected(self, other):
        return op(other, self)
    reflected.__name__ = f'r{op.__name__}'
    return reflected


# Chainer's names of the reflected operators (``rsub(x, c)`` is ``c - x``: Variable.__rsub__).
rsub = reflect(sub)
rdiv = reflect(div)
rpow = reflect(pow)


def install_variable_arithmetics() -> None:
    """Attach the operators (and the other differentiable methods) to :class:`Variable`; done
    once when ``chainlet`` is imported (Chainer's name)."""
    from chainlet.functions._variable_methods import install
    install()
