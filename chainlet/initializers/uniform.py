"""Uniform initializers: Uniform, LeCunUniform, GlorotUniform, HeUniform."""
from __future__ import annotations

import math
from typing import Any, Optional

from chainlet.initializers.base import Initializer, get_fans


class Uniform(Initializer):
    """Draw from :math:`U(-\\text{scale}, \\text{scale})`.

    Args:
        scale: Half-width of the interval.
        dtype: dtype of the generated arrays.
        rng: ``numpy.random.RandomState`` or ``Generator`` (NumPy's global state if ``None``).

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Uniform
        >>> a = np.empty(1000, np.float32)
        >>> Uniform(0.1, rng=np.random.default_rng(0))(a)
        >>> bool(abs(a).max() <= 0.1)
        True
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, rng: Optional[Any] = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        limit = self._limit(array)
        self._fill_random(array, 'uniform', low=-limit, high=limit)

    def _limit(self, array: Any) -> float:
        return self.scale


class _FanUniform(Uniform):
    """``U(-s, s)`` with ``s = scale * sqrt(factor / fan)``."""

    _fan = 'fan_in'
    _factor = 3.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Optional[Any] = None) -> None:
        super().__init__(scale, dtype, rng)

    def _limit(self, array: Any) -> float:
        fan_in, fan_out = get_fans(array.shape)
        fan = fan_in if self._fan == 'fan_in' else (fan_in + fan_out) / 2
        return self.scale * math.sqrt(self._factor / fan)


class LeCunUniform(_FanUniform):
    """``U(-s, s)`` with ``s = scale * sqrt(3 / fan_in)``."""


class GlorotUniform(_FanUniform):
    """``U(-s, s)`` with ``s = scale * sqrt(6 / (fan_in + fan_out))`` (Keras's default)."""

    _fan = 'fan_avg'


class HeUniform(_FanUniform):
    """``U(-s, s)`` with ``s = scale * sqrt(6 / fan_in)``."""

    _factor = 6.0
