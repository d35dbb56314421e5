"""Gaussian initializers: Normal, LeCunNormal, GlorotNormal, HeNormal."""
from __future__ import annotations

import math
from typing import Any, Optional

from chainlet.initializers.base import Initializer, get_fans


class Normal(Initializer):
    """Draw from :math:`N(0, \\text{scale}^2)`.

    Args:
        scale: Standard deviation.
        dtype: dtype of the generated arrays.
        rng: ``numpy.random.RandomState`` or ``Generator`` (NumPy's global state if ``None``).

    Example:
        >>> import numpy as np
        >>> from chainlet.initializers import Normal
        >>> a = np.empty((100, 100), np.float32)
        >>> Normal(0.05, rng=np.random.RandomState(0))(a)
        >>> round(float(a.std()), 2)
        0.05
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, rng: Optional[Any] = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def __call__(self, array: Any) -> None:
        self._check_dtype(array)
        self._fill_random(array, 'normal', loc=0.0, scale=self._std(array))

    def _std(self, array: Any) -> float:
        return self.scale


class _FanNormal(Normal):
    """``N(0, scale^2 * factor / fan)``; ``fan`` is fan_in, fan_out or their mean."""

    _fan = 'fan_in'
    _factor = 1.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Optional[Any] = None) -> None:
        super().__init__(scale, dtype, rng)

    def _std(self, array: Any) -> float:
        fan_in, fan_out = get_fans(array.shape)
        fan = {'fan_in': fan_in, 'fan_out': fan_out, 'fan_avg': (fan_in + fan_out) / 2}[self._fan]
        return self.scale * math.sqrt(self._factor / fan)


class LeCunNormal(_FanNormal):
    """:math:`N(0, \\text{scale}^2 / \\text{fan\\_in})` (LeCun 98)."""


class GlorotNormal(_FanNormal):
    """:math:`N(0, 2\\,\\text{scale}^2 / (\\text{fan\\_in} + \\text{fan\\_out}))` (Glorot & Bengio
    2010)."""

    _fan = 'fan_avg'


class HeNormal(_FanNormal):
    """:math:`N(0, 2\\,\\text{scale}^2 / \\text{fan})`, suited to ReLU networks (He et al. 2015).

    Args:
        scale: Multiplier of the standard deviation.
        dtype: dtype of the generated arrays.
        fan_option: ``'fan_in'`` (default) or ``'fan_out'``.
        rng: Random source (see :class:`Normal`).
    """

    _factor = 2.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = 'fan_in',
                 rng: Optional[Any] = None) -> None:
        if fan_option not in ('fan_in', 'fan_out'):
            raise ValueError(f"HeNormal: argument fan_option: expected 'fan_in' or 'fan_out', "
                             f'got {fan_option!r}')
        super().__init__(scale, dtype, rng)
        self.fan_option = fan_option

    @property
    def _fan(self) -> str:  # type: ignore[override]
        return self.fan_option
