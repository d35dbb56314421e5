"""Chainer's type-check language: ``check_type_forward(self, in_types)`` as Chainer code writes it.

A function validates its inputs by stating conditions on *symbolic* type information::

    def check_type_forward(self, in_types):
        type_check.argname(in_types, ('x', 'W'))
        x_type, w_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim >= 2,
            w_type.ndim == 2,
            type_check.prod(x_type.shape[1:]) == w_type.shape[1],
        )

Each ``in_types[i]`` is an :class:`Expr`; attribute access, indexing, calls and operators on it
build a small syntax tree instead of a value, and a comparison becomes a
:class:`BoolBinaryOperator` that :func:`expect` evaluates. When one is false the error shows the
condition as written and the values that broke it::

    Invalid operation is performed in: Linear (Forward)

    Expect: x.ndim >= 2
    Actual: 1 < 2

Building trees costs time, so :class:`~chainlet.FunctionNode` first runs the check in *light
mode*, where ``in_types`` holds the arrays themselves and the conditions are plain booleans; only
when that fails does it run again on symbolic types, to word the message. Built-in chainlet
functions skip the language altogether and check their arrays directly (``_check_arrays``), so
the hot path pays nothing for it.

:class:`InvalidType` is the one error class of all type checks in chainlet (also raised by the
array checks of :mod:`chainlet.type_check`). Unlike Chainer's, it is a ``TypeError``.

Example:
    >>> import numpy as np
    >>> from chainlet.utils import type_check
    >>> x_type, = type_check.get_types((np.zeros((3,), np.float32),), 'in_types', False)
    >>> type_check.expect(x_type.ndim == 2)
    Traceback (most recent call last):
    ...
    chainlet.utils.type_check.InvalidType: Expect: in_types[0].ndim == 2
    Actual: 1 != 2
"""
from __future__ import annotations

import contextlib
import operator
import threading
from typing import Any, Callable, Iterator, Optional, Sequence

import numpy

from chainlet import backend

_local = threading.local()


# -- the function being checked, named in messages --

@contextlib.contextmanager
def get_function_check_context(f: Any) -> Iterator[None]:
    """Within this context, :class:`InvalidType` messages name ``f.label`` as the function."""
    previous = getattr(_local, 'current_function', None)
    _local.current_function = f
    try:
        yield
    finally:
        _local.current_function = previous


class InvalidType(TypeError):
    """Raised when the inputs of a function have the wrong dtype, rank or shape.

    Args:
        expect: What was expected (text of the condition).
        actual: What was found.
        msg: The whole message; by default ``Expect: ...`` / ``Actual: ...``, headed by the
            function being checked when there is one.

    Attributes:
        expect: Text of what was expected (may be empty).
        actual: Text of what was given (may be empty).
    """

    def __init__(self, expect: Any, actual: Any, msg: Optional[str] = None) -> None:
        if msg is None:
            msg = f'Expect: {expect}\nActual: {actual}'
            func = getattr(_local, 'current_function', None)
            if func is not None:
                msg = f'\nInvalid operation is performed in: {func.label} (Forward)\n\n{msg}'
        super().__init__(msg)
        self.expect = expect
        self.actual = actual

    def __reduce__(self) -> tuple:
        return (type(self), (self.expect, self.actual, self.args[0]))


# -- type information --

class TypeInfo:
    """Shape and dtype of one array (the same for NumPy and CuPy arrays).

    Attributes:
        shape: Tuple of ints.
        dtype: ``numpy.dtype`` (``None`` for a missing gradient).
        ndim: ``len(shape)``.
    """

    def __init__(self, shape: tuple, dtype: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        n = 1
        for s in self.shape:
            n *= s
        return n


class TypeInfoTuple(tuple):
    """Tuple of symbolic :class:`Variable` s wrapping :class:`TypeInfo`, one per input."""

    name = 'in_types'

    def size(self) -> 'Variable':
        """The number of inputs, as an expression (``in_types.size()``)."""
        return Variable(len(self), f'{self.name}.size')


class LightTypeInfoTuple(tuple):
    """Tuple of the input arrays themselves, used in light mode."""

    def size(self) -> int:
        """The number of inputs."""
        return len(self)


def get_types(data: tuple, name: str, accept_none: bool, *,
              shapes: Optional[Sequence[tuple]] = None) -> TypeInfoTuple:
    """Symbolic type information of the arrays in ``data``, named ``name[0]``, ``name[1]``...

    Args:
        data: Tuple of arrays (``None`` allowed when ``accept_none``).
        name: Name of the tuple in messages (``'in_types'``).
        accept_none: Whether ``None`` entries (missing gradients) are allowed.
        shapes: The shapes to report instead of the arrays' own, one per array (Chainer's
            hook for arrays stored in another memory layout).
    """
    if not isinstance(data, tuple):
        raise AssertionError(f'get_types: data must be a tuple, got {type(data).__name__}')
    # One shape per array; None stands for the array's own
    each: Sequence[Optional[tuple]] = [None] * len(data) if shapes is None else shapes
    info = TypeInfoTuple(_get_type(name, i, x, accept_none, shape)
                         for i, (x, shape) in enumerate(zip(data, each)))
    info.name = name
    return info


def get_light_types(data: tuple, *,
                    shapes: Optional[Sequence[tuple]] = None) -> LightTypeInfoTuple:
    """The arrays of ``data`` as a :class:`LightTypeInfoTuple` (for light mode); with
    ``shapes``, :class:`TypeInfo` of those shapes and the arrays' dtypes instead."""
    if not isinstance(data, tuple):
        raise AssertionError(f'get_light_types: data must be a tuple, got {type(data).__name__}')
    if shapes is not None:
        data = tuple(TypeInfo(shape, x.dtype) for x, shape in zip(data, shapes))
    return LightTypeInfoTuple(data)


def _get_type(name: str, index: int, array: Any, accept_none: bool,
              shape: Optional[tuple] = None) -> 'Variable':
    var = f'{name}[{index}]'
    if accept_none and array is None:
        return Variable(TypeInfo((), None), var)
    if not backend.is_array(array):
        raise AssertionError(f'{var} must be an ndarray, got {type(array).__name__}')
    return Variable(TypeInfo(array.shape if shape is None else tuple(shape), array.dtype), var)


# -- expressions --

def _un_op(text: str, priority: int, func: Callable) -> Callable:
    return lambda x: UnaryOperator(priority, x, text, func)


def _bin_op(text: str, priority: int, func: Callable, right_associative: bool = False) -> Callable:
    return lambda x, y: BinaryOperator(priority, x, y, text, func, right_associative)


def _bool_op(text: str, inverse: str, func: Callable) -> Callable:
    return lambda x, y: BoolBinaryOperator(x, y, text, inverse, func)


def _flip(f: Callable) -> Callable:
    return lambda x, y: f(y, x)


class Expr:
    """A node of a syntax tree over type information; :meth:`eval` gives its value.

    Operators build new trees (Python's operator priorities are kept in ``priority`` so that
    ``str`` adds only the parentheses that are needed). An ``Expr`` refuses ``bool()``:
    ``x == y and z == w`` would silently test only the second condition.
    """

    def __init__(self, priority: int) -> None:
        self.priority = priority

    def eval(self) -> Any:
        """Evaluate the tree and return its value."""
        raise TypeError(f'{type(self).__name__} is an abstract expression and has no value')

    def __getattr__(self, name: str) -> 'GetAttr':
        if name.startswith('__') and name.endswith('__'):
            raise AttributeError(name)  # keep copy, pickle and friends away from the tree
        return GetAttr(self, name)

    def __getitem__(self, key: Any) -> 'GetItem':
        return GetItem(self, key)

    def __call__(self, *args: Any) -> 'Call':
        return Call(self, args)

    def __bool__(self) -> bool:
        raise RuntimeError("Don't convert Expr to bool. Please call Expr.eval method to "
                           'evaluate expression.')

    __hash__ = object.__hash__

    __eq__ = _bool_op('==', '!=', operator.eq)
    __ne__ = _bool_op('!=', '==', operator.ne)
    __lt__ = _bool_op('<', '>=', operator.lt)
    __le__ = _bool_op('<=', '>', operator.le)
    __gt__ = _bool_op('>', '<=', operator.gt)
    __ge__ = _bool_op('>=', '<', operator.ge)

    # Priorities follow Python's grammar, from '|' (0) up to '**' (7); atoms are 8.
    __add__ = _bin_op('+', 4, operator.add)
    __radd__ = _flip(__add__)
    __sub__ = _bin_op('-', 4, operator.sub)
    __rsub__ = _flip(__sub__)
    __mul__ = _bin_op('*', 5, operator.mul)
    __rmul__ = _flip(__mul__)
    __truediv__ = _bin_op('/', 5, operator.truediv)
    __rtruediv__ = _flip(__truediv__)
    __floordiv__ = _bin_op('//', 5, operator.floordiv)
    __rfloordiv__ = _flip(__floordiv__)
    __mod__ = _bin_op('%', 5, operator.mod)
    __rmod__ = _flip(__mod__)
    __pow__ = _bin_op('**', 7, operator.pow, right_associative=True)
    __lshift__ = _bin_op('<<', 3, operator.lshift)
    __rlshift__ = _flip(__lshift__)
    __rshift__ = _bin_op('>>', 3, operator.rshift)
    __rrshift__ = _flip(__rshift__)
    __and__ = _bin_op('&', 2, operator.and_)
    __rand__ = _flip(__and__)
    __xor__ = _bin_op('^', 1, operator.xor)
    __rxor__ = _flip(__xor__)
    __or__ = _bin_op('|', 0, operator.or_)
    __ror__ = _flip(__or__)
    __neg__ = _un_op('-', 6, operator.neg)
    __pos__ = _un_op('+', 6, operator.pos)
    __invert__ = _un_op('~', 6, operator.invert)


def _eval_expr(v: Any) -> Any:
    if isinstance(v, Expr):
        return v.eval()
    if isinstance(v, list):
        return [_eval_expr(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_eval_expr(x) for x in v)
    return v


def _repr(v: Any) -> str:
    if isinstance(v, Expr):
        return str(v)
    if isinstance(v, list):
        return '[' + ', '.join(_repr(x) for x in v) + ']'
    if isinstance(v, tuple):
        if len(v) == 1:
            return f'({_repr(v[0])},)'
        return '(' + ', '.join(_repr(x) for x in v) + ')'
    return repr(v)


def _str_subscript(key: Any) -> str:
    if key is Ellipsis:
        return '...'
    if isinstance(key, slice):
        parts = ['' if p is None else _repr(p) for p in (key.start, key.stop, key.step)]
        return ':'.join(parts if key.step is not None else parts[:2])
    if isinstance(key, tuple):
        return ', '.join(_str_subscript(k) for k in key)
    return _repr(key)


class Atom(Expr):
    """An expression that never needs parentheses."""

    def __init__(self) -> None:
        super().__init__(8)


class Constant(Atom):
    """A literal value, shown with ``repr``."""

    def __init__(self, value: Any) -> None:
        super().__init__()
        self.value = value

    def __str__(self) -> str:
        return _repr(self.value)

    def eval(self) -> Any:
        return self.value


class Variable(Constant):
    """A named value (``in_types[0]``, or the name given by :func:`argname`), shown by name."""

    def __init__(self, value: Any, name: str) -> None:
        super().__init__(value)
        self.name = name

    def __str__(self) -> str:
        return self.name


class GetAttr(Atom):
    """``obj.name``."""

    def __init__(self, obj: Any, name: Any) -> None:
        super().__init__()
        self.obj = obj
        self.name = name

    def __str__(self) -> str:
        name = self.name.value if isinstance(self.name, Constant) else self.name
        if isinstance(name, str):
            return f'{_repr(self.obj)}.{name}'
        return f'getattr({_repr(self.obj)}, {_repr(self.name)})'

    def eval(self) -> Any:
        return getattr(_eval_expr(self.obj), _eval_expr(self.name))


class GetItem(Atom):
    """``obj[key]``."""

    def __init__(self, obj: Any, key: Any) -> None:
        super().__init__()
        self.obj = obj
        self.key = key

    def __str__(self) -> str:
        return f'{_repr(self.obj)}[{_str_subscript(self.key)}]'

    def eval(self) -> Any:
        return _eval_expr(self.obj)[_eval_expr(self.key)]


class Call(Atom):
    """``obj(*args)``."""

    def __init__(self, obj: Any, args: tuple) -> None:
        if not isinstance(args, tuple):
            raise AssertionError(f'Call: args must be a tuple, got {type(args).__name__}')
        super().__init__()
        self.obj = obj
        self.args = args

    def __str__(self) -> str:
        return f"{_repr(self.obj)}({', '.join(_repr(a) for a in self.args)})"

    def eval(self) -> Any:
        return _eval_expr(self.obj)(*[_eval_expr(a) for a in self.args])


class UnaryOperator(Expr):
    """A prefix operator (``-x``, ``+x``, ``~x``)."""

    def __init__(self, priority: int, term: Any, exp: str, func: Callable) -> None:
        super().__init__(priority)
        self.term = term
        self.exp = exp
        self.func = func

    def eval(self) -> Any:
        return self.func(_eval_expr(self.term))

    def __str__(self) -> str:
        text = _repr(self.term)
        if isinstance(self.term, Expr) and self.term.priority < self.priority:
            text = f'({text})'
        return self.exp + text


class BinaryOperator(Expr):
    """An infix operator; ``right_associative`` only for ``**``."""

    def __init__(self, priority: int, lhs: Any, rhs: Any, exp: str, func: Callable,
                 right_associative: bool = False) -> None:
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = exp
        self.func = func
        self.right_associative = right_associative

    def eval(self) -> Any:
        return self.func(_eval_expr(self.lhs), _eval_expr(self.rhs))

    def __str__(self) -> str:
        # A side needs parentheses when it binds more loosely, or equally on the side that
        # associativity does not group first: x - (y - z), (x ** y) ** z.
        left, right = _repr(self.lhs), _repr(self.rhs)
        if isinstance(self.lhs, Expr) and (
                self.lhs.priority < self.priority or
                (self.right_associative and self.lhs.priority == self.priority)):
            left = f'({left})'
        if isinstance(self.rhs, Expr) and (
                self.rhs.priority < self.priority or
                (not self.right_associative and self.rhs.priority == self.priority)):
            right = f'({right})'
        return f'{left} {self.exp} {right}'


class Testable:
    """An expression that :func:`expect` can test."""

    def expect(self) -> None:
        """Raise :class:`InvalidType` unless the condition holds."""
        raise TypeError(f'{type(self).__name__} does not define expect()')


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison; ``inv`` is the operator shown when it fails (``==`` fails as ``!=``)."""

    def __init__(self, lhs: Any, rhs: Any, exp: str, inv: str, func: Callable) -> None:
        BinaryOperator.__init__(self, -1, lhs, rhs, exp, func)
        self.inv = inv

    def expect(self) -> None:
        left, right = _eval_expr(self.lhs), _eval_expr(self.rhs)
        if not self.func(left, right):
            raise InvalidType(f'{self.lhs} {self.exp} {self.rhs}', f'{left} {self.inv} {right}')


# -- the functions check_type_forward uses --

def argname(in_types: Sequence[Any], names: Sequence[str]) -> None:
    """Give the inputs readable names for messages; checks that there are ``len(names)``."""
    if len(in_types) != len(names):
        raise InvalidType(f'{len(names)} argument(s)', f'{len(in_types)} argument(s)',
                          'Invalid number of arguments')
    for t, name in zip(in_types, names):
        if isinstance(t, Variable):
            t.name = name


def expect(*bool_exprs: Any) -> None:
    """Test every condition in order; raise :class:`InvalidType` at the first that fails.

    Conditions are comparisons of expressions; plain booleans are accepted too (they are what
    comparisons give in light mode).
    """
    if in_light_mode():
        if not all(bool_exprs):
            raise InvalidType('', '')
        return
    for i, e in enumerate(bool_exprs):
        if isinstance(e, Testable):
            e.expect()
        elif not e:
            raise InvalidType(f'condition {i} to hold', f'condition {i} is {e!r}')


def same_types(*arrays: Any) -> bool:
    """True when all arrays are NumPy arrays, or all are CuPy arrays."""
    if all(isinstance(x, numpy.ndarray) for x in arrays):
        return True
    return all(backend.is_cupy_array(x) for x in arrays)


def eval(exp: Any) -> Any:  # noqa: A001 - Chainer's public name
    """The value of ``exp`` (in light mode values are already plain)."""
    return exp if in_light_mode() else exp.eval()


def make_variable(value: Any, name: str) -> Any:
    """A named :class:`Variable` (in light mode, the value itself)."""
    return value if in_light_mode() else Variable(value, name)


class LightMode:
    """Context in which type checks run on the arrays themselves (``with light_mode: ...``)."""

    def __enter__(self) -> None:
        _local.light_mode = True

    def __exit__(self, *exc: Any) -> None:
        _local.light_mode = False


light_mode = LightMode()


def in_light_mode() -> bool:
    """Whether this thread is in :data:`light_mode`."""
    return getattr(_local, 'light_mode', False)


def _prod_impl(xs: Sequence[Any]) -> Any:
    result = 1
    for x in xs:
        result *= x
    return result


_prod = Variable(_prod_impl, 'prod')


def prod(xs: Any) -> Any:
    """The product of ``xs`` (e.g. ``prod(x_type.shape[1:])``), as an expression."""
    return _prod_impl(xs) if in_light_mode() else _prod(xs)


def expect_broadcast_shapes(*shape_types: Any) -> None:
    """Raise :class:`InvalidType` unless the shapes (expressions or tuples) broadcast together."""
    shapes = [s if in_light_mode() else _eval_expr(s) for s in shape_types]
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        lines = ['cannot broadcast inputs of the following shapes:']
        lines += [f'{t} = {s}' for t, s in zip(shape_types, shapes)]
        raise InvalidType('', '', msg='\n'.join(lines)) from None


def check_with_dsl(func: Any, in_data: tuple) -> None:
    """Run ``func.check_type_forward`` on ``in_data`` as Chainer does.

    First in light mode on the arrays; only if that fails, again on symbolic types, so that the
    error names the function, the condition and the values.
    """
    try:
        with light_mode:
            func.check_type_forward(LightTypeInfoTuple(in_data))
        return
    except InvalidType:
        pass
    types = get_types(in_data, 'in_types', False)
    with get_function_check_context(func):
        func.check_type_forward(types)
