"""``LogNormal``: ``exp(X)`` for ``X ~ N(mu, sigma**2)``.

Samples ``exp(mu + sigma * eps)`` are reparameterized; the KL divergence of two log-normals
equals that of the underlying normals.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.LogNormal(np.float32(0.0), np.float32(1.0))
    >>> round(float(d.log_prob(np.float32(1.0)).array), 4)
    -0.9189
"""
from __future__ import annotations

import math
from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions.gamma import _safe_positive
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import (
    as_param, float_like, raw, where_in_support)

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
LOGPROBC = -_HALF_LOG_2PI  # Chainer's public constant: -log(2 pi) / 2


class LogNormal(distribution.ScalarDistribution):
    """Log-normal distribution.

    Args:
        mu: The mean of the logarithm.
        sigma: The standard deviation of the logarithm, positive.

    Example:
        >>> import numpy as np
        >>> LogNormal(np.zeros(2, np.float32), np.ones(2, np.float32)).sample(3).shape
        (3, 2)
    """

    param_names = ('mu', 'sigma')

    def __init__(self, mu: Any, sigma: Any) -> None:
        self.mu = as_param(mu)
        self.sigma = as_param(sigma)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.mu)
        inside = raw(x) > 0
        log_x = F.log(_safe_positive(x, inside))
        z = (log_x - self.mu) / self.sigma
        value = -0.5 * z * z - log_x - F.log(self.sigma) - _HALF_LOG_2PI
        return where_in_support(inside, value, -numpy.inf)

    @property
    def entropy(self) -> chainlet.Variable:
        return self.mu + 0.5 + F.log(self.sigma) + _HALF_LOG_2PI

    @property
    def mean(self) -> chainlet.Variable:
        return F.exp(self.mu + 0.5 * self.sigma ** 2)

    @property
    def variance(self) -> chainlet.Variable:
        s2 = self.sigma ** 2
        return F.expm1(s2) * F.exp(2 * self.mu + s2)

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.standard_normal((n,) + self.batch_shape).astype(self.mu.dtype)
        return F.exp(self.mu + self.sigma * eps)


@register_kl(LogNormal, LogNormal)
def _kl_log_normal_log_normal(dist1: LogNormal, dist2: LogNormal) -> chainlet.Variable:
    ratio = dist1.sigma / dist2.sigma
    diff = (dist1.mu - dist2.mu) / dist2.sigma
    return F.log(dist2.sigma) - F.log(dist1.sigma) + 0.5 * (ratio * ratio + diff * diff) - 0.5
