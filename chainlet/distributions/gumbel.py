"""``Gumbel``: the type-I extreme value distribution with location ``loc`` and scale ``scale``.

``log_prob(x) = -log scale - z - exp(-z)`` with ``z = (x - loc) / scale``; samples
``loc + scale * g`` (``g`` standard Gumbel) are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Gumbel(np.float32(0.0), np.float32(1.0))
    >>> round(float(d.mean.array), 4)
    0.5772
"""
from __future__ import annotations

import math
from typing import Any


import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like

EULER = 0.57721566490153286061


class Gumbel(distribution.ScalarDistribution):
    """Gumbel distribution.

    Args:
        loc: The location (mode).
        scale: The scale, positive.

    Example:
        >>> import numpy as np
        >>> Gumbel(np.zeros(2, np.float32), np.ones(2, np.float32)).sample(3).shape
        (3, 2)
    """

    param_names = ('loc', 'scale')

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = as_param(loc)
        self.scale = as_param(scale)

    def log_prob(self, x: Any) -> chainlet.Variable:
        z = (float_like(x, self.loc) - self.loc) / self.scale
        return -F.log(self.scale) - z - F.exp(-z)

    @property
    def entropy(self) -> chainlet.Variable:
        return F.log(self.scale) + (EULER + 1)

    @property
    def mean(self) -> chainlet.Variable:
        return self.loc + EULER * self.scale

    @property
    def mode(self) -> chainlet.Variable:
        return F.broadcast_to(self.loc, self.batch_shape)

    @property
    def variance(self) -> chainlet.Variable:
        return (math.pi ** 2 / 6) * self.scale ** 2

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.gumbel(size=(n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(dist1: Gumbel, dist2: Gumbel) -> chainlet.Variable:
    ratio = dist1.scale / dist2.scale
    shift = (dist1.loc - dist2.loc) / dist2.scale
    # E[exp(-(x - loc2) / scale2)] under dist1 is exp(-shift) * Gamma(1 + ratio).
    return (F.log(dist2.scale) - F.log(dist1.scale) + EULER * (ratio - 1) + shift
            + F.exp(-shift + F.lgamma(ratio + 1)) - 1)
