"""``Pareto``: the Pareto (type I) distribution with minimum ``scale`` and index ``alpha``.

Density ``alpha scale^alpha / x^(alpha + 1)`` on ``[scale, inf)``. The mean is infinite for
``alpha <= 1`` and the variance for ``alpha <= 2`` (returned as ``inf``, as Chainer's). Samples
``scale * exp(E / alpha)`` (``E`` standard exponential) are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Pareto(np.float32(1.0), np.float32(3.0))
    >>> d.mean.array, d.log_prob(np.float32(0.5)).array
    (array(1.5, dtype=float32), array(-inf, dtype=float32))
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


class Pareto(distribution.ScalarDistribution):
    """Pareto distribution.

    Args:
        scale: The minimum value, positive.
        alpha: The shape (tail index), positive.

    Example:
        >>> import numpy as np
        >>> Pareto(np.ones(2, np.float32), np.full(2, 3, np.float32)).sample(4).shape
        (4, 2)
    """

    param_names = ('scale', 'alpha')

    def __init__(self, scale: Any, alpha: Any) -> None:
        self.scale = as_param(scale)
        self.alpha = as_param(alpha)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.scale)
        xa = raw(x)
        xp = self.xp
        inside = xp.asarray(xa >= self.scale.array)
        safe = xp.where(inside, xa, xp.ones_like(xa))
        safe = F.where(inside, x, safe)
        value = (F.log(self.alpha) + self.alpha * F.log(self.scale)
                 - (self.alpha + 1) * F.log(safe))
        return where_in_support(inside, value, -numpy.inf)

    @property
    def entropy(self) -> chainlet.Variable:
        return -F.log(self.alpha) + F.log(self.scale) + 1 / self.alpha + 1

    @property
    def mean(self) -> chainlet.Variable:
        alpha = F.broadcast_to(self.alpha, self.batch_shape)
        finite = self.xp.asarray(alpha.array > 1)
        safe = F.where(finite, alpha, self.xp.full(alpha.shape, 2, dtype=alpha.dtype))
        return where_in_support(finite, self.scale * safe / (safe - 1), numpy.inf)

    @property
    def variance(self) -> chainlet.Variable:
        alpha = F.broadcast_to(self.alpha, self.batch_shape)
        finite = self.xp.asarray(alpha.array > 2)
        safe = F.where(finite, alpha, self.xp.full(alpha.shape, 3, dtype=alpha.dtype))
        value = self.scale ** 2 * safe / ((safe - 1) ** 2 * (safe - 2))
        return where_in_support(finite, value, numpy.inf)

    @property
    def support(self) -> str:
        return '[scale, inf]'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        e = xp.random.standard_exponential((n,) + self.batch_shape).astype(self.scale.dtype)
        return self.scale * F.exp(e / self.alpha)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(dist1: Pareto, dist2: Pareto) -> chainlet.Variable:
    value = (F.log(dist1.alpha) - F.log(dist2.alpha)
             + dist2.alpha * (F.log(dist1.scale) - F.log(dist2.scale))
             + dist2.alpha / dist1.alpha - 1)
    return where_in_support(dist1.scale.array >= dist2.scale.array, value, numpy.inf)
