"""Constant initializers: Constant, Zero, One, NaN, Identity."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet.initializers.base import Initializer


class Constant(Initializer):
    """Fill with ``fill_value`` (a scalar, or an array broadcast to the shape).

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Constant
        >>> a = np.empty(3, np.float32); Constant(2.0)(a); a
        array([2., 2., 2.], dtype=float32)
    """

    def __init__(self, fill_value: Any, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.fill_value = fill_value

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        value = self.fill_value
        value = numpy.asarray(value.get() if backend.is_cupy_array(value) else value)
        try:
            numpy.broadcast_shapes(value.shape, array.shape)
        except ValueError:
            raise ValueError(f'Constant: fill_value of shape {value.shape} cannot fill an array '
                             f'of shape {array.shape}') from None
        self._fill(array, numpy.broadcast_to(value, array.shape).astype(array.dtype))


class Zero(Constant):
    """Fill with zeros."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(0.0, dtype)


class One(Constant):
    """Fill with ones."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(1.0, dtype)


class NaN(Constant):
    """Fill with NaN (what an unset parameter holds, so that using it shows)."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(numpy.nan, dtype)


class Identity(Initializer):
    """Fill a square matrix with ``scale`` times the identity.

    Args:
        scale: Multiplier of the identity.
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError(f'Identity: expected a square matrix, got shape {array.shape}')
        self._fill(array, (self.scale * numpy.identity(array.shape[0])).astype(array.dtype))
