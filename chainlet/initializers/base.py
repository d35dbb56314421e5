"""The ``Initializer`` base class, fan computation and ``generate_array``."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import backend


class Initializer:
    """Base class: fills an array in place when called.

    Args:
        dtype: dtype of arrays this initializer generates (``None``: the parameter's dtype,
            float32 by default).
        rng: Optional ``numpy.random.Generator`` for reproducible draws.
    """

    def __init__(self, dtype: Any = None, rng: Optional[numpy.random.Generator] = None) -> None:
        self.dtype = None if dtype is None else numpy.dtype(dtype)
        self.rng = rng

    def __call__(self, array: Any) -> None:
        raise NotImplementedError(f'{type(self).__name__} must implement __call__')

    def _draw(self, method: str, shape: tuple, **kwargs: Any) -> numpy.ndarray:
        source = self.rng if self.rng is not None else numpy.random
        if method == 'normal' and self.rng is not None:
            return source.normal(size=shape, **kwargs)
        return getattr(source, method)(size=shape, **kwargs)

    def _fill(self, array: Any, values: numpy.ndarray) -> None:
        if isinstance(array, numpy.ndarray):
            array[...] = values
        else:
            backend.copyto(array, values.astype(array.dtype))

    def __repr__(self) -> str:
        fields = {k: v for k, v in vars(self).items() if k not in ('rng',) and v is not None}
        inner = ', '.join(f'{k}={v!r}' for k, v in fields.items())
        return f'{type(self).__name__}({inner})'


def get_fans(shape: Sequence[int]) -> tuple[int, int]:
    """Return ``(fan_in, fan_out)`` of a weight of ``shape`` ((out, in, *kernel) as Chainer)."""
    if len(shape) < 2:
        raise ValueError(f'initializer: fans need a weight of ndim >= 2, got shape {tuple(shape)}')
    receptive = int(numpy.prod(shape[2:])) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def get_initializer(initializer: Any, default_dtype: Any = None) -> Any:
    """Turn ``None``/a scalar/an array/an initializer into an initializer (or array)."""
    from chainlet.initializers.constant import Constant, NaN
    if initializer is None:
        return NaN(dtype=default_dtype)
    if isinstance(initializer, (int, float, numpy.number)) and not isinstance(initializer, bool):
        return Constant(initializer, dtype=default_dtype)
    if backend.is_array(initializer) or callable(initializer):
        return initializer
    raise TypeError(f'initializer: expected an Initializer, a scalar, an ndarray or None, '
                    f'got {type(initializer).__name__}')


def generate_array(initializer: Any, shape: Sequence[int], xp: Any = numpy,
                   dtype: Any = None, device: Any = None) -> Any:
    """Create an array of ``shape`` filled by ``initializer``.

    The dtype is ``dtype`` if given, else the initializer's own, else float32.
    """
    dtype = numpy.dtype(dtype if dtype is not None else
                        (getattr(initializer, 'dtype', None) or numpy.float32))
    own = getattr(initializer, 'dtype', None)
    if own is not None and numpy.dtype(own) != dtype:
        raise ValueError(f'initializer: its dtype {numpy.dtype(own)} differs from the requested '
                         f'dtype {dtype}')
    array = numpy.empty(tuple(shape), dtype)
    initializer(array)
    return array if xp is numpy else backend.to_gpu(array, device)
