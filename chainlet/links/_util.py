"""Helpers shared by the links: dtype resolution and initializer normalization."""
from __future__ import annotations

import copy
from typing import Any, Literal, Optional, overload

import numpy

from chainlet import _config, backend, initializers, type_check


class _CallableInitializer(initializers.Initializer):
    """Wraps a plain callable ``f(array)`` so that the parameter knows its dtype."""

    def __init__(self, func: Any, dtype: Any) -> None:
        super().__init__(dtype)
        self.func = func

    def __call__(self, array: Any) -> None:
        self.func(array)


def _is_float_array(value: Any) -> bool:
    return backend.is_array(value) and value.dtype.kind == 'f'


def resolve_dtype(*inits: Any, dtype: Any = None) -> numpy.dtype:
    """The dtype of a link's parameters.

    ``dtype`` wins when given; otherwise the first float array or initializer among ``inits``
    that carries a dtype decides (so ``Linear(3, 2, initialW=w64)`` is a float64 link), then
    ``chainlet.config.dtype``, then float32.
    """
    if dtype is not None:
        return numpy.dtype(dtype)
    for init in inits:
        if _is_float_array(init):
            return init.dtype
        if isinstance(init, initializers.Initializer) and init.dtype is not None:
            return numpy.dtype(init.dtype)
    configured = _config.config.dtype
    return numpy.dtype(numpy.float32 if configured is None else configured)


def get_initializer(init: Any, default: Any, dtype: numpy.dtype,
                    owner: str = 'link', name: str = 'initializer') -> initializers.Initializer:
    """Turn what a user passed as an initializer into an Initializer generating ``dtype``.

    ``None`` selects ``default`` (a scalar or an Initializer); a scalar becomes ``Constant``; an
    array becomes ``Constant`` of a copy; an Initializer without a dtype is copied (the user's
    object is not modified) and given ``dtype``, one with a dtype is used as it is (that
    parameter then has the initializer's dtype); any other callable ``f(array)`` is wrapped.
    """
    if init is None:
        init = default
    if isinstance(init, bool):
        raise TypeError(f'{owner}: argument {name}: expected an initializer, a scalar or an '
                        f'array, got bool')
    if isinstance(init, (int, float, numpy.number)):
        return initializers.Constant(init, dtype)
    if backend.is_array(init):
        return initializers.Constant(backend.to_cpu(init).copy(), dtype)
    if isinstance(init, initializers.Initializer):
        # An initializer that names its own dtype keeps it, as in Chainer: parameters of one
        # link may differ (Linear with a float16 W and a float32 b computes in x's dtype).
        if init.dtype is None:
            init = copy.copy(init)
            init.dtype = dtype
        return init
    if callable(init):
        return _CallableInitializer(init, dtype)
    raise TypeError(f'{owner}: argument {name}: expected an initializer, a scalar or an array, '
                    f'got {type(init).__name__}')


@overload
def check_size(owner: str, name: str, value: Any, allow_none: Literal[False] = False) -> int: ...


@overload
def check_size(owner: str, name: str, value: Any, allow_none: bool) -> Optional[int]: ...


def check_size(owner: str, name: str, value: Any, allow_none: bool = False) -> Optional[int]:
    """Check that ``value`` is a positive int (or ``None`` when allowed); return it."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        raise TypeError(f'{owner}: argument {name}: expected a positive int'
                        f'{" or None" if allow_none else ""}, got {type(value).__name__}')
    if value <= 0:
        raise ValueError(f'{owner}: argument {name}: expected a positive int, got {value}')
    return int(value)


def size_of_shape(shape: Any) -> int:
    """Product of the entries of ``shape`` (1 for an empty shape)."""
    size = 1
    for s in shape:
        size *= int(s)
    return size


def check_batch(owner: str, name: str, x: Any, shape: str = '(batch, in_size)',
                ndim: Optional[int] = None) -> None:
    """Check that the step input ``x`` of a recurrent link has a batch axis (at least two axes,
    or exactly ``ndim``), so that a 0-d input is refused with a message naming the link and the
    argument instead of ending in an ``IndexError`` on ``x.shape[0]``.

    Raises:
        TypeError: ``x`` is not an array (``None`` where a state is required, a list).
        ValueError: ``x`` has too few (or not ``ndim``) axes.
    """
    x_ndim = getattr(x, 'ndim', None)
    if x_ndim is None:
        raise TypeError(f'{owner}: argument {name}: expected a Variable or an ndarray of shape '
                        f'{shape}, got {type(x).__name__}')
    if (x_ndim < 2) if ndim is None else (x_ndim != ndim):
        raise type_check.InvalidValue(
            shape, str(tuple(x.shape)),
            f'{owner}: argument {name}: expected shape {shape}, got {tuple(x.shape)}')


def as_tuple(owner: str, name: str, value: Any, ndim: int) -> tuple:
    """``value`` (an int or a sequence of ``ndim`` ints) as a tuple of ``ndim`` ints."""
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        return (int(value),) * ndim
    if isinstance(value, (tuple, list)) and len(value) == ndim and all(
            isinstance(v, (int, numpy.integer)) and not isinstance(v, bool) for v in value):
        return tuple(int(v) for v in value)
    raise TypeError(f'{owner}: argument {name}: expected an int or a sequence of {ndim} ints, '
                    f'got {value!r}')


def as_array(value: Any) -> Any:
    """The array held by ``value`` (a Variable or an array); ``None`` stays ``None``."""
    return getattr(value, 'array', value)


class InitialArrayShapeError(ValueError, AssertionError):
    """An array given as a parameter's initial value has the wrong shape.

    A ``ValueError`` that is also an ``AssertionError``: Chainer's links check these shapes
    with ``assert``, and code written for Chainer catches that.
    """


def check_initial_array(owner: str, name: str, init: Any, shape: tuple) -> None:
    """Raise :class:`InitialArrayShapeError` if ``init`` is an array not of ``shape``."""
    if backend.is_array(init) and tuple(init.shape) != tuple(shape):
        raise InitialArrayShapeError(f'{owner}: argument {name}: expected an array of shape '
                                     f'{tuple(shape)}, got {tuple(init.shape)}')
