"""Small helpers shared by the array functions: raw data access and argument checks."""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet.type_check import InvalidType, InvalidValue  # noqa: F401  (re-exported)
from chainlet.variable import Variable, as_array


class InvalidIndex(InvalidType, IndexError):
    """More indices than the array has axes: Chainer's type-check error, and an ``IndexError``."""


class IndexValueError(IndexError, ValueError):
    """A malformed index (several ``...``): Chainer's ``ValueError``, and an ``IndexError``."""


def check_index(func: str, slices: tuple, ndim: int) -> None:
    """Check that the index tuple ``slices`` has at most one ``...`` and fits ``ndim`` axes.

    Other problems (out-of-range entries, wrong kinds) are left to the array library.
    """
    n_ellipsis = 0
    used = 0
    for s in slices:
        if s is Ellipsis:
            n_ellipsis += 1
        elif s is not None:
            dtype = getattr(s, 'dtype', None)
            used += s.ndim if dtype is not None and dtype.kind == 'b' else 1
    if n_ellipsis > 1:
        raise IndexValueError(f'{func}: argument slices: expected at most one Ellipsis (...), '
                              f'got {n_ellipsis}')
    if used > ndim:
        raise InvalidIndex(f'at most {ndim} indices', str(used),
                           f'{func}: argument slices: expected at most {ndim} indices for an '
                           f'array of ndim {ndim}, got {used}')


def invalid_value(func: str, name: str, expected: str, actual: str) -> InvalidValue:
    """Build ``func: argument name: expected ..., got ...`` as an :class:`InvalidValue`."""
    return InvalidValue(expected, actual, f'{func}: argument {name}: expected {expected}, '
                                          f'got {actual}')


# The array behind ``x`` (a Variable or an array).
data_of = as_array


def check_array(func: str, name: str, x: Any) -> Any:
    """Return the array behind ``x`` or raise ``TypeError`` when ``x`` holds none."""
    data = data_of(x)
    if not hasattr(data, 'dtype') or not hasattr(data, 'shape'):
        raise TypeError(f'{func}: argument {name}: expected a Variable or an ndarray, '
                        f'got {type(x).__name__}')
    return data


def check_int(func: str, name: str, value: Any) -> int:
    """Return ``value`` as an ``int`` or raise ``TypeError`` (bools are rejected)."""
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, numpy.integer)):
        raise TypeError(f'{func}: argument {name}: expected an int, got {type(value).__name__}')
    return int(value)


def normalize_axis(func: str, name: str, axis: Any, ndim: int) -> int:
    """Return ``axis`` in ``[0, ndim)``; :class:`InvalidValue` when out of range."""
    axis = check_int(func, name, axis)
    if not -ndim <= axis < ndim:
        raise invalid_value(func, name, f'an axis in [{-ndim}, {ndim}) for an array of ndim '
                            f'{ndim}', str(axis))
    return axis % ndim


def normalize_axes(func: str, name: str, axes: Any, ndim: int) -> tuple:
    """Return ``axes`` (an int or a sequence of ints) as a tuple of distinct axes in range."""
    items: Sequence = (axes,) if isinstance(axes, (int, numpy.integer)) else axes
    if isinstance(axes, (bool, numpy.bool_)) or not isinstance(items, (tuple, list)):
        raise TypeError(f'{func}: argument {name}: expected an int or a tuple of ints, '
                        f'got {type(axes).__name__}')
    out = tuple(normalize_axis(func, name, a, ndim) for a in items)
    if len(set(out)) != len(out):
        raise ValueError(f'{func}: argument {name}: repeated axis in {tuple(items)}')
    return out


def arrays_of(func: str, xs: Any) -> list:
    """Check that ``xs`` is a non-empty list or tuple of arrays; return their data."""
    if isinstance(xs, Variable) or hasattr(xs, 'dtype') or not isinstance(xs, (list, tuple)):
        raise TypeError(f'{func}: argument xs: expected a list or tuple of Variables or arrays, '
                        f'got {type(xs).__name__}')
    if len(xs) == 0:
        raise ValueError(f'{func}: argument xs: expected at least one array, got an empty '
                         f'{type(xs).__name__}')
    return [check_array(func, f'xs[{i}]', x) for i, x in enumerate(xs)]


def check_same_ndim(func: str, data: Sequence[Any]) -> None:
    """Check that all arrays of ``data`` have the ndim of the first (raises ``InvalidType``)."""
    from chainlet import type_check
    ndim = data[0].ndim
    for i, d in enumerate(data[1:], 1):
        if d.ndim != ndim:
            raise type_check.fail(func, f'xs[{i}]', f'ndim {ndim} (the ndim of xs[0])',
                                  f'shape {d.shape}')
