"""``Initializer``, the base class of weight initializers, and ``get_fans``.

An initializer is a callable that fills an existing array in place (``init(array)``); its
optional ``dtype`` says which dtype the arrays it makes should have (``None``: whatever the
caller asks for, ``chainlet.config.dtype`` by default). The concrete initializers live in
:mod:`chainlet.initializers`; this module is Chainer's ``chainer.initializer``.

Example:
    >>> import numpy as np
    >>> from chainlet import initializer
    >>> class Twos(initializer.Initializer):
    ...     def __call__(self, array):
    ...         array[...] = 2
    >>> a = np.empty(3, np.float32); Twos()(a); a
    array([2., 2., 2.], dtype=float32)
    >>> initializer.get_fans((4, 3, 5, 5))
    (75, 100)
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy


class Initializer:
    """Base class of initializers: a callable that fills an array in place.

    Subclasses override ``__call__(array)``. Random initializers accept ``rng`` (a
    ``numpy.random.RandomState`` or ``numpy.random.Generator``); without it they draw from
    NumPy's global random state.

    Args:
        dtype: dtype of the arrays this initializer generates (``None``: the caller decides).
        rng: Optional random source of the random initializers.

    Attributes:
        dtype: The dtype given (``numpy.dtype``) or ``None``.
    """

    def __init__(self, dtype: Any = None, rng: Any = None) -> None:
        if rng is not None and not hasattr(rng, 'normal'):
            raise TypeError(f'{type(self).__name__}: argument rng: expected a '
                            f'numpy.random.RandomState or Generator, got {type(rng).__name__}')
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        self.rng = rng

    def __call__(self, array: Any) -> None:
        """Fill ``array`` in place (each initializer defines how)."""
        raise TypeError(f'{type(self).__name__} does not define __call__(array); subclasses of '
                        f'Initializer must')

    # -- helpers of the concrete initializers --

    def _check_dtype(self, array: Any) -> None:
        if self.dtype is not None and array.dtype != self.dtype:
            raise ValueError(f'{type(self).__name__}: the array has dtype {array.dtype}, the '
                             f'initializer generates {self.dtype}')

    def _draw(self, method: str, shape: tuple, **kwargs: Any) -> numpy.ndarray:
        """Samples of ``method`` ('normal' or 'uniform') from ``rng`` or NumPy's global state.

        Drawing on the host keeps one code path for NumPy and CuPy arrays and makes a seeded
        ``numpy.random`` reproduce a run on any device.
        """
        source = numpy.random if self.rng is None else self.rng
        return numpy.asarray(getattr(source, method)(size=shape, **kwargs))

    def _fill_random(self, array: Any, method: str, **kwargs: Any) -> None:
        """Fill ``array`` with :meth:`_draw`'s values, drawn a chunk at a time so that no
        float64 copy of a big weight is made (same values as one draw)."""
        from chainlet import _chunked_random
        source = numpy.random if self.rng is None else self.rng
        _chunked_random.fill(array, source, method, **kwargs)

    def _randint2(self) -> int:
        """0 or 1, from ``rng`` (RandomState or Generator) or NumPy's global state."""
        source = numpy.random if self.rng is None else self.rng
        draw = getattr(source, 'integers', None) or source.randint
        return int(draw(2))

    @staticmethod
    def _fill(array: Any, values: Any) -> None:
        values = numpy.asarray(values)
        if isinstance(array, numpy.ndarray):
            array[...] = values
        else:  # CuPy: one host-to-device copy
            from chainlet import backend
            backend.copyto(array, values.astype(array.dtype, copy=False))

    def __repr__(self) -> str:
        fields = {k: v for k, v in vars(self).items()
                  if not k.startswith('_') and k != 'rng' and v is not None}
        inner = ', '.join(f'{k}={v!r}' for k, v in fields.items())
        return f'{type(self).__name__}({inner})'


def get_fans(shape: Sequence[int]) -> tuple[int, int]:
    """Return ``(fan_in, fan_out)`` of a weight of ``shape``.

    As in Chainer, a weight is laid out ``(out, in, *kernel)``: ``fan_in = in * prod(kernel)``
    and ``fan_out = out * prod(kernel)``.

    Args:
        shape: Shape of the weight; at least 2 axes.

    Returns:
        ``(fan_in, fan_out)`` as ints.

    Raises:
        ValueError: ``shape`` has fewer than 2 axes.

    Example:
        >>> from chainlet.initializer import get_fans
        >>> get_fans((2, 3))
        (3, 2)
    """
    if not isinstance(shape, tuple):
        shape = tuple(shape)
    if len(shape) < 2:
        raise ValueError(f'get_fans: argument shape: expected at least 2 axes (out, in, '
                         f'*kernel), got {shape}')
    receptive = 1
    for k in shape[2:]:
        receptive *= int(k)
    return int(shape[1]) * receptive, int(shape[0]) * receptive
