"""``Beta``: the beta distribution on ``[0, 1]`` with shape parameters ``a`` and ``b``.

Log-density ``(a-1) log x + (b-1) log(1-x) - log B(a, b)`` (``-inf`` outside ``[0, 1]``);
entropy and KL use ``digamma``. Sampling uses the array module's beta generator and is not
differentiable (as Chainer's).

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Beta(np.float32(2.0), np.float32(2.0))
    >>> d.mean.array, d.prob(np.float32(0.5)).array
    (array(0.5, dtype=float32), array(1.5, dtype=float32))
"""
from __future__ import annotations

from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import (
    as_param, float_like, lbeta, raw, where_in_support)


class Beta(distribution.ScalarDistribution):
    """Beta distribution.

    Args:
        a: The first shape parameter, positive.
        b: The second shape parameter, positive.

    Example:
        >>> import numpy as np
        >>> Beta(np.ones(2, np.float32), np.ones(2, np.float32)).entropy.array
        array([0., 0.], dtype=float32)
    """

    param_names = ('a', 'b')

    def __init__(self, a: Any, b: Any) -> None:
        self.a = as_param(a)
        self.b = as_param(b)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.a)
        xa = raw(x)
        xp = self.xp
        inside = xp.asarray((xa >= 0) & (xa <= 1))
        # Evaluate the logs at a point inside the support where x is outside, so neither the
        # value nor the gradient of the discarded branch is NaN.
        safe = xp.where(inside, xa, xp.asarray(0.5, dtype=xa.dtype))
        safe = F.where(inside, x, safe)
        value = ((self.a - 1) * F.log(safe) + (self.b - 1) * F.log1p(-safe)
                 - lbeta(self.a, self.b))
        return where_in_support(inside, value, -numpy.inf)

    @property
    def entropy(self) -> chainlet.Variable:
        a, b = self.a, self.b
        return (lbeta(a, b) - (a - 1) * F.digamma(a) - (b - 1) * F.digamma(b)
                + (a + b - 2) * F.digamma(a + b))

    @property
    def mean(self) -> chainlet.Variable:
        return self.a / (self.a + self.b)

    @property
    def variance(self) -> chainlet.Variable:
        total = self.a + self.b
        return self.a * self.b / (total ** 2 * (total + 1))

    @property
    def support(self) -> str:
        return '[0, 1]'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        a, b = xp.broadcast_arrays(self.a.array, self.b.array)
        draws = xp.random.beta(a, b, size=(n,) + a.shape).astype(self.a.dtype)
        # Rounding to the parameters' dtype can land on 0 or 1 exactly, where the density's
        # logarithms diverge; keep draws in the open interval.
        info = numpy.finfo(draws.dtype)
        return chainlet.Variable(xp.clip(draws, info.tiny, 1 - info.epsneg))


@register_kl(Beta, Beta)
def _kl_beta_beta(dist1: Beta, dist2: Beta) -> chainlet.Variable:
    a1, b1, a2, b2 = dist1.a, dist1.b, dist2.a, dist2.b
    return (lbeta(a2, b2) - lbeta(a1, b1) + (a1 - a2) * F.digamma(a1)
            + (b1 - b2) * F.digamma(b1) + (a2 - a1 + b2 - b1) * F.digamma(a1 + b1))
