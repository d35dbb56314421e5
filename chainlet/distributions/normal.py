"""``Normal``: the univariate Gaussian, parameterized by ``loc`` and ``scale`` or ``log_scale``.

Every quantity is written with chainlet functions; ``cdf`` and its relatives use ``ndtr`` /
``log_ndtr`` (accurate in the tails) and ``icdf`` uses ``ndtri``. ``sample`` is reparameterized:
``loc + scale * eps`` with ``eps`` standard normal, so gradients reach ``loc`` and ``scale``.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Normal(np.float32(0.0), np.float32(1.0))
    >>> round(float(d.log_prob(np.float32(0.0)).array), 4)
    -0.9189
"""
from __future__ import annotations

import math
from typing import Any, Optional

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like
from chainlet.utils.cache import cached_property

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)

# Chainer's public constants: the entropy of N(0, 1), the constant term of log N(x; 0, 1)
# and the normalizer 1 / sqrt(2 pi).
ENTROPYC = 0.5 * math.log(2 * math.pi * math.e)
LOGPROBC = -_HALF_LOG_2PI
PROBC = 1. / math.sqrt(2 * math.pi)


class Normal(distribution.ScalarDistribution):
    """Normal distribution ``N(loc, scale**2)``.

    Args:
        loc: The mean (array or Variable).
        scale: The standard deviation; give either this or ``log_scale``.
        log_scale: The logarithm of the standard deviation (keyword only).

    Example:
        >>> import numpy as np
        >>> d = Normal(np.zeros(2, np.float32), log_scale=np.zeros(2, np.float32))
        >>> d.scale.array
        array([1., 1.], dtype=float32)
    """

    param_names = ('loc', 'scale')

    def __init__(self, loc: Any, scale: Optional[Any] = None, **kwargs: Any) -> None:
        log_scale = kwargs.pop('log_scale', None)
        if kwargs:
            raise TypeError(f'Normal got unexpected keyword arguments {sorted(kwargs)}')
        if (scale is None) == (log_scale is None):
            raise ValueError('Normal: give exactly one of scale and log_scale')
        self.loc = as_param(loc)
        if scale is not None:
            self.scale = as_param(scale)
        else:
            self.log_scale = as_param(log_scale)

    @cached_property
    def scale(self) -> chainlet.Variable:
        return F.exp(self.log_scale)

    @cached_property
    def log_scale(self) -> chainlet.Variable:
        return F.log(self.scale)

    def __setattr__(self, name: str, value: Any) -> None:
        # scale and log_scale are cached properties computed from each other; the one given
        # to the constructor is stored directly in the cache of both backprop modes.
        if name in ('scale', 'log_scale'):
            self.__dict__[name] = {True: value, False: value}
        else:
            super().__setattr__(name, value)

    def _z(self, x: Any) -> chainlet.Variable:
        return (float_like(x, self.loc) - self.loc) / self.scale

    def log_prob(self, x: Any) -> chainlet.Variable:
        z = self._z(x)
        return -0.5 * z * z - self.log_scale - _HALF_LOG_2PI

    def cdf(self, x: Any) -> chainlet.Variable:
        return F.ndtr(self._z(x))

    def log_cdf(self, x: Any) -> chainlet.Variable:
        return F.log_ndtr(self._z(x))

    def survival_function(self, x: Any) -> chainlet.Variable:
        return F.ndtr(-self._z(x))

    def log_survival_function(self, x: Any) -> chainlet.Variable:
        return F.log_ndtr(-self._z(x))

    def icdf(self, x: Any) -> chainlet.Variable:
        return self.loc + self.scale * F.ndtri(float_like(x, self.loc))

    @property
    def entropy(self) -> chainlet.Variable:
        return self.log_scale + (0.5 + _HALF_LOG_2PI)

    @property
    def mean(self) -> chainlet.Variable:
        return self.loc

    @property
    def mode(self) -> chainlet.Variable:
        return self.loc

    @property
    def stddev(self) -> chainlet.Variable:
        return self.scale

    @property
    def variance(self) -> chainlet.Variable:
        return self.scale ** 2

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.standard_normal((n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@register_kl(Normal, Normal)
def _kl_normal_normal(dist1: Normal, dist2: Normal) -> chainlet.Variable:
    ratio = dist1.scale / dist2.scale
    diff = (dist1.loc - dist2.loc) / dist2.scale
    return dist2.log_scale - dist1.log_scale + 0.5 * (ratio * ratio + diff * diff) - 0.5
