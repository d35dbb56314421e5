"""Gaussian initializers: Normal, LeCunNormal, GlorotNormal, HeNormal."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.initializers.base import Initializer, get_fans


class Normal(Initializer):
    """Draw from N(0, scale^2).

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Normal
        >>> a = np.empty((100, 100), np.float32)
        >>> Normal(0.05, rng=np.random.default_rng(0))(a)
        >>> round(float(a.std()), 2)
        0.05
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None,
                 rng: Optional[numpy.random.Generator] = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._fill(array, self._draw('normal', array.shape, loc=0.0, scale=self.scale)
                   .astype(array.dtype))


class _FanNormal(Initializer):
    _fan = 'in'
    _factor = 1.0

    def __init__(self, scale: float = 1.0, dtype: Any = None,
                 rng: Optional[numpy.random.Generator] = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def _std(self, shape: tuple) -> float:
        fan_in, fan_out = get_fans(shape)
        fan = {'in': fan_in, 'out': fan_out, 'avg': (fan_in + fan_out) / 2}[self._fan]
        return self.scale * numpy.sqrt(self._factor / fan)

    def __call__(self, array: Any) -> None:
        std = self._std(array.shape)
        self._fill(array, self._draw('normal', array.shape, loc=0.0, scale=std)
                   .astype(array.dtype))


class LeCunNormal(_FanNormal):
    """N(0, scale^2 / fan_in)."""


class GlorotNormal(_FanNormal):
    """N(0, scale^2 * 2 / (fan_in + fan_out))."""
    _fan = 'avg'


class HeNormal(_FanNormal):
    """N(0, scale^2 * 2 / fan), suited to ReLU networks.

    ``fan_option`` is ``'fan_in'`` (default) or ``'fan_out'``, as in Chainer.
    """
    _factor = 2.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = 'fan_in',
                 rng: Optional[numpy.random.Generator] = None) -> None:
        if fan_option not in ('fan_in', 'fan_out'):
            raise ValueError(f"HeNormal: argument fan_option: expected 'fan_in' or 'fan_out', "
                             f"got {fan_option!r}")
        super().__init__(scale, dtype, rng)
        self.fan_option = fan_option

    @property
    def _fan(self) -> str:  # type: ignore[override]
        return self.fan_option[4:]
