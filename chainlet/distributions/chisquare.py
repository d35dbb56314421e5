"""``Chisquare``: the chi-square distribution with ``k`` degrees of freedom.

It is the gamma distribution of shape ``k / 2`` and scale 2; sampling is not differentiable.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> D.Chisquare(np.float32(3.0)).variance.array
    array(6., dtype=float32)
"""
from __future__ import annotations

import math
from typing import Any

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions.gamma import _safe_positive
from chainlet.distributions.utils import as_param, float_like, raw, where_in_support

_LOG2 = math.log(2)


class Chisquare(distribution.ScalarDistribution):
    """Chi-square distribution.

    Args:
        k: The degrees of freedom, positive.

    Example:
        >>> import numpy as np
        >>> Chisquare(np.ones(2, np.float32)).mean.array
        array([1., 1.], dtype=float32)
    """

    param_names = ('k',)

    def __init__(self, k: Any) -> None:
        self.k = as_param(k)

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.k)
        inside = raw(x) > 0
        safe = _safe_positive(x, inside)
        half = 0.5 * self.k
        value = (half - 1) * F.log(safe) - 0.5 * safe - half * _LOG2 - F.lgamma(half)
        return where_in_support(inside, value, -numpy.inf)

    @property
    def entropy(self) -> chainlet.Variable:
        half = 0.5 * self.k
        return half + _LOG2 + F.lgamma(half) + (1 - half) * F.digamma(half)

    @property
    def mean(self) -> chainlet.Variable:
        return self.k

    @property
    def variance(self) -> chainlet.Variable:
        return 2 * self.k

    @property
    def support(self) -> str:
        return 'positive'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        k = self.k.array
        return chainlet.Variable(
            xp.random.chisquare(k, size=(n,) + k.shape).astype(k.dtype))
