"""``OneHotCategorical``: a categorical distribution whose values are one-hot vectors.

``event_shape`` is ``(K,)``; ``log_prob(x) = sum(x * log p)`` over the last axis (a zero
probability contributes nothing where ``x`` is 0). Samples are one-hot arrays of ``p``'s dtype.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.OneHotCategorical(np.array([0.25, 0.75], np.float32))
    >>> d.event_shape, d.prob(np.array([0.0, 1.0], np.float32)).array
    ((2,), array(0.75, dtype=float32))
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import numpy

import chainlet
from chainlet import backend
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions.categorical import _categorical_kl, _sample_categories
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import _modified_xlogx, as_param, float_like, raw
from chainlet.utils.cache import cached_property


class OneHotCategorical(distribution.Distribution):
    """One-hot categorical distribution.

    Args:
        p: Probabilities, categories on the last axis.

    Example:
        >>> import numpy as np
        >>> OneHotCategorical(np.full((2, 3), 1 / 3, np.float32)).sample(4).shape
        (4, 2, 3)
    """

    def __init__(self, p: Any) -> None:
        self.p = as_param(p)
        if self.p.ndim < 1:
            raise ValueError(f'OneHotCategorical: p needs a category axis; got shape '
                             f'{self.p.shape}')

    @cached_property
    def log_p(self) -> chainlet.Variable:
        with numpy.errstate(divide='ignore'):
            return F.log(self.p)

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(self.p.shape[:-1])

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return tuple(self.p.shape[-1:])

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        return {'p': self.p}

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = raw(float_like(x, self.p))
        xp = backend.get_array_module(x)
        shape = tuple(xp.broadcast(x, self.p.array).shape)
        x = xp.broadcast_to(x, shape)
        positive = xp.broadcast_to(self.p.array > 0, shape)
        # log p is -inf where p == 0: keep it out of the products (0 * -inf is NaN) and give
        # the value -inf only where such a category is actually observed.
        zeros = xp.zeros(shape, dtype=x.dtype)
        log_p = F.where(positive, F.broadcast_to(self.log_p, shape), zeros)
        value = F.sum(x * log_p, axis=-1)
        impossible = xp.asarray(((x != 0) & ~positive).any(axis=-1))
        return F.where(impossible, xp.full(value.shape, -xp.inf, dtype=x.dtype), value)

    @property
    def entropy(self) -> chainlet.Variable:
        return -F.sum(_modified_xlogx(self.p), axis=-1)

    @property
    def mean(self) -> chainlet.Variable:
        return self.p

    @property
    def variance(self) -> chainlet.Variable:
        return self.p * (1 - self.p)

    @property
    def support(self) -> str:
        return '{0, 1}'

    def sample_n(self, n: int) -> chainlet.Variable:
        p = self.p.array
        xp = backend.get_array_module(p)
        index = _sample_categories(p, n)
        return chainlet.Variable(xp.eye(p.shape[-1], dtype=p.dtype)[index])


register_kl(OneHotCategorical, OneHotCategorical)(_categorical_kl)
