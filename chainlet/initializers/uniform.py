"""Uniform initializers: Uniform, LeCunUniform, GlorotUniform, HeUniform."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.initializers.base import Initializer, get_fans


class Uniform(Initializer):
    """Draw from U(-scale, scale).

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Uniform
        >>> a = np.empty(1000, np.float32)
        >>> Uniform(0.1, rng=np.random.default_rng(0))(a)
        >>> bool(abs(a).max() <= 0.1)
        True
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None,
                 rng: Optional[numpy.random.Generator] = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._fill(array, self._draw('uniform', array.shape, low=-self.scale, high=self.scale)
                   .astype(array.dtype))


class _FanUniform(Uniform):
    _fan = 'in'
    _factor = 3.0

    def __init__(self, scale: float = 1.0, dtype: Any = None,
                 rng: Optional[numpy.random.Generator] = None) -> None:
        super().__init__(scale, dtype, rng)

    def __call__(self, array: Any) -> None:
        fan_in, fan_out = get_fans(array.shape)
        fan = {'in': fan_in, 'avg': (fan_in + fan_out) / 2}[self._fan]
        limit = self.scale * numpy.sqrt(self._factor / fan)
        self._fill(array, self._draw('uniform', array.shape, low=-limit, high=limit)
                   .astype(array.dtype))


class LeCunUniform(_FanUniform):
    """U(-s, s) with s = scale * sqrt(3 / fan_in)."""


class GlorotUniform(_FanUniform):
    """U(-s, s) with s = scale * sqrt(6 / (fan_in + fan_out)) (Keras's default kernel init)."""
    _fan = 'avg'


class HeUniform(_FanUniform):
    """U(-s, s) with s = scale * sqrt(6 / fan_in)."""
    _factor = 6.0
