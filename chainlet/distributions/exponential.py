"""``Exponential``: the exponential distribution with rate ``lam`` on ``[0, inf)``.

``cdf`` is ``-expm1(-lam x)`` (accurate for small ``lam x``), ``icdf`` is ``-log1p(-q) / lam``,
and samples ``-log(u) / lam`` are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Exponential(np.float32(2.0))
    >>> d.mean.array, d.log_prob(np.float32(-1.0)).array
    (array(0.5, dtype=float32), array(-inf, dtype=float32))
"""
from __future__ import annotations

from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions.gamma import _safe_positive
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like, raw, where_in_support


class Exponential(distribution.ScalarDistribution):
    """Exponential distribution.

    Args:
        lam: The rate (inverse scale), positive.

    Example:
        >>> import numpy as np
        >>> Exponential(np.ones(3, np.float32)).sample(2).shape
        (2, 3)
    """

    param_names = ('lam',)

    def __init__(self, lam: Any) -> None:
        self.lam = as_param(lam)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.lam)
        return where_in_support(raw(x) >= 0, F.log(self.lam) - self.lam * x, -numpy.inf)

    def cdf(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.lam)
        return where_in_support(raw(x) >= 0, -F.expm1(-self.lam * x), 0.0)

    def log_cdf(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.lam)
        inside = raw(x) > 0
        return where_in_support(inside, F.log(-F.expm1(-self.lam * _safe_positive(x, inside))),
                                -numpy.inf)

    def survival_function(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.lam)
        return where_in_support(raw(x) >= 0, F.exp(-self.lam * x), 1.0)

    def log_survival_function(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.lam)
        return where_in_support(raw(x) >= 0, -self.lam * x, 0.0)

    def icdf(self, x: Any) -> chainlet.Variable:
        return -F.log1p(-float_like(x, self.lam)) / self.lam

    @property
    def entropy(self) -> chainlet.Variable:
        return 1 - F.log(self.lam)

    @property
    def mean(self) -> chainlet.Variable:
        return 1 / self.lam

    @property
    def variance(self) -> chainlet.Variable:
        return 1 / self.lam ** 2

    @property
    def stddev(self) -> chainlet.Variable:
        return 1 / self.lam

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.standard_exponential((n,) + self.batch_shape).astype(self.lam.dtype)
        return eps / self.lam


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(dist1: Exponential, dist2: Exponential) -> chainlet.Variable:
    return F.log(dist1.lam) - F.log(dist2.lam) + dist2.lam / dist1.lam - 1
