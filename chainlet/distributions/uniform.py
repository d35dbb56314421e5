"""``Uniform``: the continuous uniform distribution on ``[low, high]``.

It is given either by ``low`` and ``high`` or by ``loc`` and ``scale`` (``low = loc``,
``high = loc + scale``), as Chainer's. Outside ``[low, high]`` the density is 0 (``log_prob`` is
``-inf`` with no gradient). Samples ``low + u * (high - low)`` are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Uniform(low=np.float32(0.0), high=np.float32(4.0))
    >>> d.prob(np.array([1.0, 5.0], np.float32)).array
    array([0.25, 0.  ], dtype=float32)
"""
from __future__ import annotations

from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like, raw, where_in_support


class Uniform(distribution.ScalarDistribution):
    """Uniform distribution.

    Args:
        low: The lower bound (keyword; with ``high``).
        high: The upper bound.
        loc: The lower bound (alternative to ``low``; with ``scale``).
        scale: The width ``high - low``.

    Example:
        >>> import numpy as np
        >>> Uniform(loc=np.zeros(2, np.float32), scale=np.full(2, 2, np.float32)).mean.array
        array([1., 1.], dtype=float32)
    """

    param_names = ('low', 'high')

    def __init__(self, **kwargs: Any) -> None:
        low, high = kwargs.pop('low', None), kwargs.pop('high', None)
        loc, scale = kwargs.pop('loc', None), kwargs.pop('scale', None)
        if kwargs:
            raise TypeError(f'Uniform got unexpected keyword arguments {sorted(kwargs)}')
        if low is not None and high is not None and loc is None and scale is None:
            self.low, self.high = as_param(low), as_param(high)
        elif loc is not None and scale is not None and low is None and high is None:
            self.low = as_param(loc)
            self.high = self.low + as_param(scale)
        else:
            raise ValueError('Uniform: give either low and high, or loc and scale')
        self.loc = self.low
        self.scale = self.high - self.low

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = raw(float_like(x, self.low))
        inside = (x >= self.low.array) & (x <= self.high.array)
        return where_in_support(inside, -F.log(self.scale), -numpy.inf)

    def cdf(self, x: Any) -> chainlet.Variable:
        return F.clip((float_like(x, self.low) - self.low) / self.scale, 0.0, 1.0)

    def icdf(self, x: Any) -> chainlet.Variable:
        return self.low + float_like(x, self.low) * self.scale

    @property
    def entropy(self) -> chainlet.Variable:
        return F.log(self.scale)

    @property
    def mean(self) -> chainlet.Variable:
        return (self.low + self.high) / 2

    @property
    def variance(self) -> chainlet.Variable:
        return self.scale ** 2 / 12

    @property
    def stddev(self) -> chainlet.Variable:
        return self.scale / numpy.sqrt(12.0)

    @property
    def support(self) -> str:
        return '[low, high]'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        u = xp.random.uniform(size=(n,) + self.batch_shape).astype(self.low.dtype)
        return self.low + u * self.scale


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(dist1: Uniform, dist2: Uniform) -> chainlet.Variable:
    inside = ((dist2.low.array <= dist1.low.array) & (dist1.high.array <= dist2.high.array))
    return where_in_support(inside, F.log(dist2.scale) - F.log(dist1.scale), numpy.inf)
