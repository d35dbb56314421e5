"""``Cauchy``: the Cauchy (Lorentz) distribution with location ``loc`` and scale ``scale``.

Its mean and variance do not exist: as Chainer's, ``mean`` and ``variance`` warn
(``RuntimeWarning``) and return NaN arrays. Samples ``loc + scale * c`` (``c`` standard Cauchy)
are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Cauchy(np.float32(0.0), np.float32(1.0))
    >>> d.cdf(np.float32(0.0)).array, d.icdf(np.float32(0.5)).array
    (array(0.5, dtype=float32), array(0., dtype=float32))
"""
from __future__ import annotations

import math
import warnings
from typing import Any

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions.utils import as_param, float_like


class Cauchy(distribution.ScalarDistribution):
    """Cauchy distribution.

    Args:
        loc: The location (median and mode).
        scale: The scale (half width at half maximum), positive.

    Example:
        >>> import numpy as np
        >>> Cauchy(np.zeros(2, np.float32), np.ones(2, np.float32)).sample(3).shape
        (3, 2)
    """

    param_names = ('loc', 'scale')

    def __init__(self, loc: Any, scale: Any) -> None:
        self.loc = as_param(loc)
        self.scale = as_param(scale)

    def _z(self, x: Any) -> chainlet.Variable:
        return (float_like(x, self.loc) - self.loc) / self.scale

    def log_prob(self, x: Any) -> chainlet.Variable:
        z = self._z(x)
        return -math.log(math.pi) - F.log(self.scale) - F.log1p(z * z)

    def cdf(self, x: Any) -> chainlet.Variable:
        return 0.5 + F.arctan(self._z(x)) / math.pi

    def icdf(self, x: Any) -> chainlet.Variable:
        return self.loc + self.scale * F.tan(math.pi * (float_like(x, self.loc) - 0.5))

    @property
    def entropy(self) -> chainlet.Variable:
        return F.log(4 * math.pi * self.scale)

    def _undefined(self, what: str) -> chainlet.Variable:
        warnings.warn(f'Cauchy: the {what} of the Cauchy distribution is undefined; '
                      'returning NaN', RuntimeWarning)
        xp = self.xp
        return chainlet.Variable(xp.full(self.batch_shape, xp.nan, dtype=self.loc.dtype))

    @property
    def mean(self) -> chainlet.Variable:
        return self._undefined('mean')

    @property
    def variance(self) -> chainlet.Variable:
        return self._undefined('variance')

    @property
    def mode(self) -> chainlet.Variable:
        return F.broadcast_to(self.loc, self.batch_shape)

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.standard_cauchy((n,) + self.batch_shape).astype(self.loc.dtype)
        return self.loc + self.scale * eps
