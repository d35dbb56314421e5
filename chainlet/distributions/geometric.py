"""``Geometric``: the number of Bernoulli(``p``) trials up to and including the first success.

Support ``{1, 2, ...}``; ``log_prob(x) = (x - 1) log(1 - p) + log p``. Sampling is not
differentiable.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Geometric(np.float32(0.5))
    >>> d.mean.array, d.prob(np.float32(2.0)).array
    (array(2., dtype=float32), array(0.25, dtype=float32))
"""
from __future__ import annotations

from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like, raw, where_in_support


class Geometric(distribution.ScalarDistribution):
    """Geometric distribution.

    Args:
        p: The success probability, in ``(0, 1]``.

    Example:
        >>> import numpy as np
        >>> Geometric(np.full(2, 0.5, np.float32)).variance.array
        array([2., 2.], dtype=float32)
    """

    param_names = ('p',)

    def __init__(self, p: Any) -> None:
        self.p = as_param(p)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.p)
        xa = raw(x)
        xp = self.xp
        inside = (xa >= 1) & (xa == xp.floor(xa))
        safe = chainlet.Variable(xp.asarray(xp.where(inside, xa, xp.ones_like(xa))))
        value = (safe - 1) * F.log1p(-self.p) + F.log(self.p)
        return where_in_support(inside, value, -numpy.inf)

    @property
    def mean(self) -> chainlet.Variable:
        return 1 / self.p

    @property
    def variance(self) -> chainlet.Variable:
        return (1 - self.p) / self.p ** 2

    @property
    def support(self) -> str:
        return 'positive integer'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        p = self.p.array
        return chainlet.Variable(
            xp.random.geometric(p, size=(n,) + p.shape).astype(xp.int32))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(dist1: Geometric, dist2: Geometric) -> chainlet.Variable:
    p1, p2 = dist1.p, dist2.p
    return (F.log(p1) - F.log(p2)
            + (1 / p1 - 1) * (F.log1p(-p1) - F.log1p(-p2)))
