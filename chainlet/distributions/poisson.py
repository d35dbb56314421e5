"""``Poisson``: counts with rate ``lam``; ``log_prob(x) = x log lam - lam - lgamma(x + 1)``.

Sampling (not differentiable) returns the counts as int32, as Chainer's.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Poisson(np.float32(2.0))
    >>> round(float(d.prob(np.int32(0)).array), 4)
    0.1353
"""
from __future__ import annotations

from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like, raw, where_in_support


class Poisson(distribution.ScalarDistribution):
    """Poisson distribution.

    Args:
        lam: The rate, positive.

    Example:
        >>> import numpy as np
        >>> Poisson(np.ones(2, np.float32)).sample(3).shape
        (3, 2)
    """

    param_names = ('lam',)

    def __init__(self, lam: Any) -> None:
        self.lam = as_param(lam)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.lam)
        xa = raw(x)
        xp = self.xp
        inside = (xa >= 0) & (xa == xp.floor(xa))
        safe = chainlet.Variable(xp.asarray(xp.where(inside, xa, xp.zeros_like(xa))))
        value = safe * F.log(self.lam) - self.lam - F.lgamma(safe + 1)
        return where_in_support(inside, value, -numpy.inf)

    @property
    def mean(self) -> chainlet.Variable:
        return self.lam

    @property
    def variance(self) -> chainlet.Variable:
        return self.lam

    @property
    def support(self) -> str:
        return 'non negative integer'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        lam = self.lam.array
        return chainlet.Variable(
            xp.random.poisson(lam, size=(n,) + lam.shape).astype(xp.int32))


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(dist1: Poisson, dist2: Poisson) -> chainlet.Variable:
    return dist1.lam * (F.log(dist1.lam) - F.log(dist2.lam)) - dist1.lam + dist2.lam
