"""Checks on the arrays given to a built-in function, with messages that say what was expected.

Built-in functions validate their inputs in ``_check_arrays(self, in_data)`` with these helpers
instead of Chainer's symbolic language (:mod:`chainlet.utils.type_check`, which user-written
``check_type_forward(self, in_types)`` methods use): plain boolean tests, with the message only
formatted when one fails, so checking costs almost nothing per call. Every failure raises
:class:`~chainlet.utils.type_check.InvalidType` (a ``TypeError``, the same class as the
language's) whose message names the function and the argument and shows the expected and the
actual value, e.g. ``linear: argument W: expected ndim 2, got shape (3,)``. Setting
``chainlet.config.type_check = False`` makes ``FunctionNode.apply`` skip all checks.

Example:
    >>> import numpy as np
    >>> from chainlet import type_check
    >>> type_check.argument('linear', 'W', np.zeros(3), ndim=2)
    Traceback (most recent call last):
    ...
    chainlet.utils.type_check.InvalidType: linear: argument W: expected ndim 2, got shape (3,)
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence

import numpy

from chainlet import _config
from chainlet.utils.type_check import InvalidType, expect  # noqa: F401  (one error class)


class InvalidValue(InvalidType, ValueError):
    """A bad argument value that Chainer reports from its type check (an axis out of range, a
    rank a fixed-rank wrapper does not take, a shape that does not broadcast).

    It is both a ``ValueError`` (what chainlet raises for wrong values) and an
    :class:`~chainlet.utils.type_check.InvalidType` (what Chainer code expects), so either
    ``except`` clause catches it.
    """


_KIND_NAMES = {
    'f': 'a floating-point dtype',
    'i': 'a signed integer dtype',
    'u': 'an unsigned integer dtype',
    'b': 'a boolean dtype',
    'c': 'a complex dtype',
    'iu': 'an integer dtype',
    'fc': 'a floating-point or complex dtype',
}


def fail(func: str, arg: str, expected: str, actual: str) -> InvalidType:
    """Build the standard error (``func: argument arg: expected ..., got ...``) to raise."""
    return InvalidType(expected, actual,
                       f'{func}: argument {arg}: expected {expected}, got {actual}')


def _describe(x: Any) -> str:
    shape = getattr(x, 'shape', None)
    dtype = getattr(x, 'dtype', None)
    return f'shape {shape}, dtype {dtype}' if shape is not None else type(x).__name__


def argument(func: str, name: str, x: Any, *, ndim: Optional[int] = None,
             min_ndim: Optional[int] = None, kind: Optional[str] = None,
             dtype: Any = None, shape: Optional[Sequence[Optional[int]]] = None) -> None:
    """Check one input array and raise :class:`InvalidType` describing the first mismatch.

    Args:
        func: Public name of the function (``'linear'``).
        name: Name of the argument (``'W'``).
        x: The array.
        ndim: Exact number of dimensions required.
        min_ndim: Minimum number of dimensions.
        kind: Allowed dtype kinds, e.g. ``'f'`` (float) or ``'iu'`` (integer).
        dtype: Exact dtype required.
        shape: Required shape; ``None`` entries match any size.
    """
    if not hasattr(x, 'dtype'):
        raise fail(func, name, 'an ndarray', type(x).__name__)
    if kind is not None and x.dtype.kind not in kind:
        raise fail(func, name, _KIND_NAMES.get(kind, f'dtype kind {kind!r}'), str(x.dtype))
    if dtype is not None and x.dtype != dtype:
        raise fail(func, name, f'dtype {numpy.dtype(dtype)}', str(x.dtype))
    if ndim is not None and x.ndim != ndim:
        raise fail(func, name, f'ndim {ndim}', f'shape {x.shape}')
    if min_ndim is not None and x.ndim < min_ndim:
        raise fail(func, name, f'ndim >= {min_ndim}', f'shape {x.shape}')
    if shape is not None:
        shape = tuple(shape)
        if len(shape) != x.ndim or any(s is not None and s != a for s, a in zip(shape, x.shape)):
            want = '(' + ', '.join('*' if s is None else str(s) for s in shape) + \
                (',)' if len(shape) == 1 else ')')
            raise fail(func, name, f'shape {want}', str(x.shape))


def array_input(func: str, name: str, x: Any) -> None:
    """Check that ``x`` is a Variable with data or an array, for the wrappers that read its
    ``.shape`` before applying a function (where ``None`` or a list would end in a bare
    ``AttributeError``)."""
    if not hasattr(x, 'dtype'):
        got = 'a Variable without data' if hasattr(x, 'array') else type(x).__name__
        raise fail(func, name, 'a Variable or an ndarray', got)


def float_input(func: str, name: str, x: Any) -> None:
    """Fast check that ``x`` has a floating-point dtype (and is an array at all)."""
    try:
        kind = x.dtype.kind
    except AttributeError:  # None or a list where an array belongs (a try costs nothing)
        raise fail(func, name, 'a Variable or an ndarray', type(x).__name__) from None
    if kind != 'f':
        raise fail(func, name, _KIND_NAMES['f'], str(x.dtype))


def same_dtype(func: str, names: Sequence[str], arrays: Sequence[Any]) -> None:
    """Check that all ``arrays`` share the dtype of the first (and are arrays at all)."""
    try:
        d0 = arrays[0].dtype
        for n, a in zip(names[1:], arrays[1:]):
            if a.dtype != d0:
                raise fail(func, n, f'dtype {d0} (the dtype of {names[0]})', str(a.dtype))
    except AttributeError:  # None or a list where an array belongs (a try costs nothing)
        for n, a in zip(names, arrays):
            if not hasattr(a, 'dtype'):
                raise fail(func, n, 'a Variable or an ndarray', type(a).__name__) from None
        raise


def broadcastable(func: str, names: Sequence[str], arrays: Sequence[Any]) -> tuple:
    """Check that ``arrays`` broadcast together; return the broadcast shape."""
    try:
        return numpy.broadcast_shapes(*[a.shape for a in arrays])
    except ValueError:
        shapes = ', '.join(f'{n} {a.shape}' for n, a in zip(names, arrays))
        raise InvalidType('broadcastable shapes', shapes,
                          f'{func}: arguments cannot be broadcast together: {shapes}') from None


def count(func: str, inputs: Sequence[Any], n: int | Iterable[int]) -> None:
    """Check the number of inputs."""
    allowed = (n,) if isinstance(n, int) else tuple(n)
    if len(inputs) not in allowed:
        want = ' or '.join(str(a) for a in allowed)
        raise InvalidType(want, str(len(inputs)),
                          f'{func}: expected {want} inputs, got {len(inputs)}')


def axis_in_range(func: str, name: str, axis: int, ndim: int) -> int:
    """Return ``axis`` normalised to ``[0, ndim)``, or raise ``ValueError``."""
    if not -ndim <= axis < max(ndim, 1) or (ndim == 0 and axis not in (0, -1)):
        raise ValueError(f'{func}: argument {name}: expected an axis in [{-ndim}, {ndim}), '
                         f'got {axis}')
    return axis % ndim if ndim else 0


def labels_in_range(func: str, name: str, t: Any, n_class: int, ignore: Optional[int] = None,
                    ignore_name: str = 'ignore_label') -> bool:
    """Raise ``ValueError`` unless every label is in ``[0, n_class)`` or equals ``ignore``.

    The one label check of every classification loss, chainlet's and the Keras facade's: a label
    out of range must never be read as some class (NumPy's indexing takes ``-1`` as the last
    class, a clipped binary label takes 2 for 1). On NumPy it always runs; on a GPU only in
    debug mode (``chainlet.config.debug``), since reading the verdict back costs a device sync.

    Args:
        func: Public name of the loss, for the message.
        name: Name of the label argument, for the message.
        t: Integer label array, NumPy or CuPy.
        n_class: Number of classes (2 for binary labels).
        ignore: Label value that marks an instance to skip, or ``None``.
        ignore_name: Name of the argument giving ``ignore``, for the message.

    Returns:
        ``True`` when the check saw every label and every one is a class that cannot be
        ``ignore``, which lets a loss skip its masking; ``False`` otherwise (labels that may be
        ignored, no labels, or a GPU check skipped).

    Example:
        >>> import numpy as np
        >>> labels_in_range('hinge', 't', np.array([0, 3, -1]), 3)
        Traceback (most recent call last):
        ...
        ValueError: hinge: argument t: expected labels in [0, 3), got -1, 3
    """
    if t.size == 0 or not (isinstance(t, numpy.ndarray) or _config.config.debug):
        return False
    if t.min() >= 0 and t.max() < n_class:  # two reductions: the common case, fast
        if ignore is None or not 0 <= ignore < n_class:
            return True
        return False  # ignore is a class index (Caffe allows it): some labels may be ignored
    ok = (t >= 0) & (t < n_class)
    if ignore is not None:
        ok |= t == ignore
    if bool(ok.all()):
        return False
    bad = t[~ok]
    bad = sorted(set((bad.get() if hasattr(bad, 'get') else bad).ravel().tolist()))
    shown = ', '.join(str(b) for b in bad[:5]) + (', ...' if len(bad) > 5 else '')
    expected = 'labels 0 or 1' if n_class == 2 else f'labels in [0, {n_class})'
    if ignore is not None:
        expected += f' or {ignore_name} {ignore}'
    raise ValueError(f'{func}: argument {name}: expected {expected}, got {shown}')
