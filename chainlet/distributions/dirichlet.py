"""``Dirichlet``: the distribution over probability vectors with concentration ``alpha``.

The last axis of ``alpha`` is the event axis (``event_shape = alpha.shape[-1:]``). Sampling
normalizes independent gamma draws and is not differentiable.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Dirichlet(np.array([1.0, 1.0, 2.0], np.float32))
    >>> d.mean.array
    array([0.25, 0.25, 0.5 ], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy

import chainlet
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like


def _lbeta_vector(alpha: chainlet.Variable) -> chainlet.Variable:
    return F.sum(F.lgamma(alpha), axis=-1) - F.lgamma(F.sum(alpha, axis=-1))


class Dirichlet(distribution.Distribution):
    """Dirichlet distribution.

    Args:
        alpha: The concentrations, positive, categories on the last axis.

    Example:
        >>> import numpy as np
        >>> Dirichlet(np.ones((2, 3), np.float32)).sample(4).shape
        (4, 2, 3)
    """

    def __init__(self, alpha: Any) -> None:
        self.alpha = as_param(alpha)
        if self.alpha.ndim < 1:
            raise ValueError(f'Dirichlet: alpha needs an event axis; got shape '
                             f'{self.alpha.shape}')

    @property
    def alpha0(self) -> chainlet.Variable:
        return F.sum(self.alpha, axis=-1)

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(self.alpha.shape[:-1])

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return tuple(self.alpha.shape[-1:])

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        return {'alpha': self.alpha}

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.alpha)
        return F.sum((self.alpha - 1) * F.log(x), axis=-1) - _lbeta_vector(self.alpha)

    @property
    def entropy(self) -> chainlet.Variable:
        alpha, alpha0 = self.alpha, self.alpha0
        k = alpha.shape[-1]
        return (_lbeta_vector(alpha) + (alpha0 - k) * F.digamma(alpha0)
                - F.sum((alpha - 1) * F.digamma(alpha), axis=-1))

    @property
    def mean(self) -> chainlet.Variable:
        return self.alpha / F.expand_dims(self.alpha0, -1)

    @property
    def variance(self) -> chainlet.Variable:
        alpha0 = F.expand_dims(self.alpha0, -1)
        return self.alpha * (alpha0 - self.alpha) / (alpha0 ** 2 * (alpha0 + 1))

    @property
    def support(self) -> str:
        return '[0, 1]'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        alpha = self.alpha.array
        g = xp.random.standard_gamma(alpha, size=(n,) + alpha.shape)
        x = (g / g.sum(axis=-1, keepdims=True)).astype(alpha.dtype)
        # Small concentrations can round components to exactly 0, where log_prob diverges.
        return chainlet.Variable(xp.maximum(x, numpy.finfo(x.dtype).tiny))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(dist1: Dirichlet, dist2: Dirichlet) -> chainlet.Variable:
    a, b = dist1.alpha, dist2.alpha
    digamma_gap = F.digamma(a) - F.expand_dims(F.digamma(dist1.alpha0), -1)
    return (_lbeta_vector(b) - _lbeta_vector(a) + F.sum((a - b) * digamma_gap, axis=-1))
