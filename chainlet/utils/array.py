"""Array helpers on raw NumPy/CuPy arrays: shape size, summing back a broadcast.

:func:`sum_to` is the array-level reduction behind every broadcasting gradient; the
differentiable version for ``Variable``\\ s is :func:`chainlet.functions.sum_to`, whose forward
calls this one. ``as_vec``, ``as_mat`` and ``empty_like`` are kept from Chainer with its
deprecation warnings: the array's own ``ravel``/``reshape`` and ``xp.empty_like`` do the same.

Example:
    >>> import numpy as np
    >>> sum_to(np.ones((2, 3)), (1, 3))
    array([[2., 2., 2.]])
    >>> size_of_shape((2, 0, 3))
    0
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy

from chainlet import backend

# Compared by identity (a native dtype is a singleton): cheaper than ``== numpy.float16``.
_FLOAT16 = numpy.dtype(numpy.float16)


def as_vec(x: Any) -> Any:
    """Deprecated: ``x`` flattened to 1-d (``x.ravel()``)."""
    warnings.warn('chainlet.utils.array.as_vec is deprecated; use the array\'s ravel() to '
                  'flatten it', DeprecationWarning, stacklevel=2)
    return x if x.ndim == 1 else x.ravel()


def as_mat(x: Any) -> Any:
    """Deprecated: ``x`` reshaped to 2-d, keeping the first axis (``x.reshape(len(x), -1)``)."""
    warnings.warn('chainlet.utils.array.as_mat is deprecated; use the array\'s reshape() to '
                  'make it 2-d', DeprecationWarning, stacklevel=2)
    return x if x.ndim == 2 else x.reshape(len(x), -1)


def empty_like(x: Any) -> Any:
    """Deprecated: an uninitialized array like ``x`` on the same device (``xp.empty_like``)."""
    warnings.warn('chainlet.utils.array.empty_like is deprecated; use numpy.empty_like or '
                  'cupy.empty_like', DeprecationWarning, stacklevel=2)
    return backend.get_array_module(x).empty_like(x)


def size_of_shape(shape: Sequence[int]) -> int:
    """Number of elements of an array of shape ``shape`` (a Python ``int``, 1 for ``()``)."""
    size = 1
    for n in shape:
        size *= n
    return int(size)


def broadcast_view(x: Any, shape: Sequence[int]) -> Any:
    """``xp.broadcast_to(x, shape)``: a read-only view of ``x`` broadcast to ``shape``.

    A one-element NumPy array (a summed gradient, the common case in backward) is spread with
    zero strides directly; NumPy's own function costs about 1.5 us of Python for it.

    Args:
        x: A NumPy or CuPy array.
        shape: A shape ``x`` broadcasts to.

    Returns:
        A read-only view of shape ``shape``.

    Example:
        >>> import numpy as np
        >>> broadcast_view(np.array(2.0), (2, 3))
        array([[2., 2., 2.],
               [2., 2., 2.]])
    """
    shape = tuple(shape)
    if type(x) is numpy.ndarray and x.size == 1 and x.ndim <= len(shape):
        view: numpy.ndarray = numpy.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
        view.flags.writeable = False
        return view
    return backend.get_array_module(x).broadcast_to(x, shape)


def sum_to(x: Any, shape: Sequence[int]) -> Any:
    """Sum the array ``x`` over the axes that broadcasting added or stretched to get ``shape``.

    The inverse of ``broadcast_to(y, x.shape)`` for the gradient: leading axes that ``shape``
    lacks are summed away, axes where ``shape`` has 1 are summed with ``keepdims``.

    Args:
        x: A NumPy or CuPy array (not a ``Variable``: use :func:`chainlet.functions.sum_to`).
        shape: A shape that broadcasts to ``x.shape``.

    Returns:
        An array of shape ``shape`` (``x`` itself when it already has that shape).

    Raises:
        TypeError: ``x`` is a ``Variable``.
        ValueError: ``shape`` does not broadcast to ``x.shape``.

    Example:
        >>> import numpy as np
        >>> sum_to(np.arange(6.0).reshape(2, 3), (3,))
        array([3., 5., 7.])
    """
    shape = tuple(shape)
    if x.shape == shape:
        return x
    if hasattr(x, 'node') and hasattr(x, 'array'):
        raise TypeError('chainlet.utils.sum_to: expected an array, got a Variable; use '
                        'chainlet.functions.sum_to to sum Variables')
    lead = x.ndim - len(shape)
    if lead < 0 or any(s != 1 and s != n for s, n in zip(shape, x.shape[lead:])):
        raise ValueError(f'chainlet.utils.sum_to: cannot sum an array of shape {x.shape} to '
                         f'shape {shape} (it must broadcast to {x.shape})')
    axes = tuple(range(lead)) + tuple(
        lead + i for i, s in enumerate(shape) if s == 1 and x.shape[lead + i] != 1)
    if not axes:
        y = x
    elif x.dtype is _FLOAT16:
        # NumPy sums float16 along a strided axis in float16 (a broadcast's gradient lost half
        # its value to cancellation over 1000 rows): accumulate in float32, round once.
        y = x.sum(axis=axes, keepdims=True, dtype=numpy.float32).astype(x.dtype)
    else:
        y = x.sum(axis=axes, keepdims=True)
    if lead:
        y = y.reshape(shape)
    return y


def _broadcast_to(xp: Any, x: Any, shape: Sequence[int]) -> Any:
    # Chainer's helper taking the array module (numpy, cupy) as an argument.
    return xp.broadcast_to(x, shape)
