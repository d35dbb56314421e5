"""``Laplace``: the double-exponential distribution with location ``loc`` and scale ``scale``.

Density ``exp(-|x - loc| / scale) / (2 scale)``; ``cdf``/``icdf`` have closed forms, and samples
``loc + scale * e`` (``e`` standard Laplace) are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Laplace(np.float32(0.0), np.float32(1.0))
    >>> d.cdf(np.float32(0.0)).array
    array(0.5, dtype=float32)
"""
from __future__ import annotations

import math
from typing import Any

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like


def _laplace_cdf(x: Any) -> chainlet.Variable:
    """The CDF of the standard Laplace distribution, differentiable (Chainer's helper).

    ``0.5 exp(x)`` below 0 and ``1 - 0.5 exp(-x)`` above, written as one formula in ``|x|``.

    Args:
        x: A float array or Variable.

    Returns:
        A Variable of the same shape.
    """
    x = as_param(x)
    return 0.5 + 0.5 * F.sign(x) * -F.expm1(-F.absolute(x))


def _laplace_icdf(x: Any) -> chainlet.Variable:
    """The inverse CDF of the standard Laplace distribution, differentiable.

    Args:
        x: Probabilities in ``(0, 1)`` (array or Variable).

    Returns:
        A Variable of the same shape.
    """
    q = as_param(x) - 0.5
    return -F.sign(q) * F.log1p(-2 * F.absolute(q))


class Laplace(distribution.ScalarDistribution):
    """Laplace distribution.

    Args:
        loc: The location (mean, median and mode).
        scale: The scale, positive.

    Example:
        >>> import numpy as np
        >>> Laplace(np.zeros(2, np.float32), np.ones(2, np.float32)).variance.array
        array([2., 2.], dtype=float32)
    """

    param_names = ('loc', 'scale')

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = as_param(loc)
        self.scale = as_param(scale)

    def _z(self, x: Any) -> chainlet.Variable:
        return (float_like(x, self.loc) - self.loc) / self.scale

    def log_prob(self, x: Any) -> chainlet.Variable:
        return -F.absolute(self._z(x)) - F.log(2 * self.scale)

    def cdf(self, x: Any) -> chainlet.Variable:
        return _laplace_cdf(self._z(x))

    def icdf(self, x: Any) -> chainlet.Variable:
        return self.loc + self.scale * _laplace_icdf(float_like(x, self.loc))

    @property
    def entropy(self) -> chainlet.Variable:
        return F.log(2 * self.scale) + 1

    @property
    def mean(self) -> chainlet.Variable:
        return F.broadcast_to(self.loc, self.batch_shape)

    @property
    def mode(self) -> chainlet.Variable:
        return self.mean

    @property
    def variance(self) -> chainlet.Variable:
        return F.broadcast_to(2 * self.scale ** 2, self.batch_shape)

    @property
    def stddev(self) -> chainlet.Variable:
        return F.broadcast_to(math.sqrt(2) * self.scale, self.batch_shape)

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.laplace(size=(n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(dist1: Laplace, dist2: Laplace) -> chainlet.Variable:
    distance = F.absolute(dist1.loc - dist2.loc)
    return (F.log(dist2.scale) - F.log(dist1.scale) + distance / dist2.scale
            + dist1.scale / dist2.scale * F.exp(-distance / dist1.scale) - 1)
