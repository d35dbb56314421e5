"""``Gamma``: the gamma distribution with shape ``k`` and scale ``theta`` on ``(0, inf)``.

Samples are ``theta * g`` with ``g`` a standard gamma draw of shape ``k``: differentiable in
``theta`` (not in ``k``), as Chainer's.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Gamma(np.float32(2.0), np.float32(3.0))
    >>> d.mean.array, d.variance.array
    (array(6., dtype=float32), array(18., dtype=float32))
"""
from __future__ import annotations

from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import (
    as_param, float_like, raw, where_in_support)


def _safe_positive(x: Any, inside: Any) -> Any:
    """``x`` with points outside the support replaced by 1 (keeps logs finite)."""
    xa = raw(x)
    xp = chainlet.backend.get_array_module(xa)
    inside = xp.asarray(inside)
    safe = xp.where(inside, xa, xp.asarray(1, dtype=xa.dtype))
    return F.where(inside, x, safe)


class Gamma(distribution.ScalarDistribution):
    """Gamma distribution.

    Args:
        k: The shape parameter, positive.
        theta: The scale parameter, positive.

    Example:
        >>> import numpy as np
        >>> Gamma(np.ones(2, np.float32), np.ones(2, np.float32)).sample(3).shape
        (3, 2)
    """

    param_names = ('k', 'theta')

    def __init__(self, k: Any, theta: Any) -> None:
        self.k = as_param(k)
        self.theta = as_param(theta)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.k)
        inside = raw(x) > 0
        safe = _safe_positive(x, inside)
        value = (-F.lgamma(self.k) - self.k * F.log(self.theta)
                 + (self.k - 1) * F.log(safe) - safe / self.theta)
        return where_in_support(inside, value, -numpy.inf)

    @property
    def entropy(self) -> chainlet.Variable:
        k = self.k
        return k + F.log(self.theta) + F.lgamma(k) + (1 - k) * F.digamma(k)

    @property
    def mean(self) -> chainlet.Variable:
        return self.k * self.theta

    @property
    def variance(self) -> chainlet.Variable:
        return self.k * self.theta ** 2

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        k = xp.broadcast_to(self.k.array, self.batch_shape)
        g = xp.random.standard_gamma(k, size=(n,) + self.batch_shape).astype(self.k.dtype)
        # A small shape can round draws to exactly 0, outside the support (0, inf).
        return self.theta * xp.maximum(g, numpy.finfo(g.dtype).tiny)


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(dist1: Gamma, dist2: Gamma) -> chainlet.Variable:
    k1, t1, k2, t2 = dist1.k, dist1.theta, dist2.k, dist2.theta
    return ((k1 - k2) * F.digamma(k1) - F.lgamma(k1) + F.lgamma(k2)
            + k2 * (F.log(t2) - F.log(t1)) + k1 * (t1 / t2 - 1))
