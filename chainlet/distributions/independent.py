"""``Independent``: reinterpret trailing batch dimensions of a distribution as event dimensions.

``Independent(Normal(loc, scale), 1)`` with ``loc`` of shape ``(B, d)`` is a distribution over
vectors of length ``d`` with diagonal covariance: ``log_prob`` and ``entropy`` sum the base's over
the reinterpreted dimensions, and the KL divergence of two such distributions sums the base KL.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> base = D.Normal(np.zeros((4, 3), np.float32), np.ones((4, 3), np.float32))
    >>> d = D.Independent(base, 1)
    >>> d.batch_shape, d.event_shape, d.log_prob(np.zeros((4, 3), np.float32)).shape
    ((4,), (3,), (4,))
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import kl_divergence, register_kl


class Independent(distribution.Distribution):
    """Independent distribution.

    Args:
        distribution: The base distribution.
        reinterpreted_batch_ndims: How many trailing batch dimensions become event
            dimensions; ``None`` means all but the first (``max(0, ndim - 1)``).

    Example:
        >>> import numpy as np
        >>> from chainlet import distributions as D
        >>> d = Independent(D.Normal(np.zeros((2, 3, 4), np.float32),
        ...                          np.ones((2, 3, 4), np.float32)))
        >>> d.batch_shape, d.event_shape
        ((2,), (3, 4))
    """

    def __init__(self, distribution: Any,
                 reinterpreted_batch_ndims: Optional[int] = None) -> None:
        self.distribution = distribution
        ndim = len(distribution.batch_shape)
        if reinterpreted_batch_ndims is None:
            reinterpreted_batch_ndims = max(0, ndim - 1)
        if not 0 <= reinterpreted_batch_ndims <= ndim:
            raise ValueError(f'Independent: reinterpreted_batch_ndims must be in [0, {ndim}] '
                             f'(the base batch ndim); got {reinterpreted_batch_ndims}')
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def _split(self) -> int:
        return len(self.distribution.batch_shape) - self.reinterpreted_batch_ndims

    def _reduce(self, x: chainlet.Variable) -> chainlet.Variable:
        if self.reinterpreted_batch_ndims == 0:
            return x
        axes = tuple(range(-self.reinterpreted_batch_ndims, 0))
        return F.sum(x, axis=axes)

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(self.distribution.batch_shape[:self._split])

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return (tuple(self.distribution.batch_shape[self._split:])
                + tuple(self.distribution.event_shape))

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        return self.distribution.params

    def log_prob(self, x: Any) -> chainlet.Variable:
        return self._reduce(self.distribution.log_prob(x))

    @property
    def entropy(self) -> chainlet.Variable:
        return self._reduce(self.distribution.entropy)

    @property
    def mean(self) -> chainlet.Variable:
        return self.distribution.mean

    @property
    def variance(self) -> chainlet.Variable:
        return self.distribution.variance

    @property
    def stddev(self) -> chainlet.Variable:
        return self.distribution.stddev

    @property
    def covariance(self) -> chainlet.Variable:
        # Independent coordinates: a diagonal covariance over the flattened event.
        variance = self.variance
        size = 1
        for s in self.event_shape:
            size *= s
        flat = F.reshape(variance, self.batch_shape + (size,))
        xp = self.xp
        eye = xp.eye(size, dtype=variance.dtype)
        return F.expand_dims(flat, -1) * eye

    @property
    def support(self) -> str:
        return self.distribution.support

    def sample_n(self, n: int) -> chainlet.Variable:
        return self.distribution.sample_n(n)


@register_kl(Independent, Independent)
def _kl_independent_independent(dist1: Independent, dist2: Independent) -> chainlet.Variable:
    if (dist1.reinterpreted_batch_ndims != dist2.reinterpreted_batch_ndims
            or dist1.event_shape != dist2.event_shape):
        raise ValueError('kl_divergence: the two Independent distributions must have the same '
                         f'event_shape; got {dist1.event_shape} and {dist2.event_shape}')
    return dist1._reduce(kl_divergence(dist1.distribution, dist2.distribution))
