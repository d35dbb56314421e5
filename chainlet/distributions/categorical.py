"""``Categorical``: a distribution over ``{0, ..., K-1}`` given probabilities or logits.

The last axis of ``p`` (or ``logit``) indexes the categories, so ``batch_shape`` is
``p.shape[:-1]`` and ``event_shape`` is ``()``. ``log_prob`` picks ``log p`` of the given integer
values with ``select_item``; sampling (not differentiable) inverts the cumulative probabilities.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Categorical(np.array([[0.2, 0.8]], np.float32))
    >>> d.prob(np.array([1], np.int32)).array
    array([0.8], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy

import chainlet
from chainlet import backend
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import _modified_xlogx, as_param, raw
from chainlet.utils.cache import cached_property


def _sample_categories(p: Any, n: int) -> Any:
    """``n`` category indices per row of ``p`` (last axis = categories), as int32."""
    xp = backend.get_array_module(p)
    cum = xp.cumsum(p, axis=-1)
    cum = cum / cum[..., -1:]
    u = xp.random.uniform(size=(n,) + p.shape[:-1] + (1,)).astype(cum.dtype)
    index = (u >= cum).sum(axis=-1)
    return xp.minimum(index, p.shape[-1] - 1).astype(xp.int32)


class Categorical(distribution.Distribution):
    """Categorical distribution.

    Args:
        p: Probabilities, categories on the last axis; give either this or ``logit``.
        logit: Unnormalized log-probabilities (normalized with ``log_softmax``).

    Example:
        >>> import numpy as np
        >>> d = Categorical(logit=np.zeros((2, 4), np.float32))
        >>> d.batch_shape, d.sample(3).shape
        ((2,), (3, 2))
    """

    def __init__(self, p: Optional[Any] = None, logit: Optional[Any] = None) -> None:
        if (p is None) == (logit is None):
            raise ValueError(f'{type(self).__name__}: give exactly one of p and logit')
        self._given = 'p' if p is not None else 'logit'
        param = as_param(p if p is not None else logit)
        if param.ndim < 1:
            raise ValueError(f'{type(self).__name__}: {self._given} needs a category axis; '
                             f'got shape {param.shape}')
        self.__dict__[self._given] = dict.fromkeys((True, False), param)

    @cached_property
    def p(self) -> chainlet.Variable:
        return F.softmax(self.logit, axis=-1)

    @cached_property
    def logit(self) -> chainlet.Variable:
        return self.log_p

    @cached_property
    def log_p(self) -> chainlet.Variable:
        if self._given == 'logit':
            return F.log_softmax(self.logit, axis=-1)
        with numpy.errstate(divide='ignore'):
            return F.log(self.p)

    @property
    def _param(self) -> chainlet.Variable:
        return self.p if self._given == 'p' else self.logit

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(self._param.shape[:-1])

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return ()

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        return {self._given: self._param}

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = raw(x)
        xp = backend.get_array_module(x)
        x = xp.asarray(x).astype(xp.int32, copy=False)
        k = self._param.shape[-1]
        log_p = self.log_p
        shape = tuple(xp.broadcast(x, xp.empty(self.batch_shape, dtype=bool)).shape)
        full = F.broadcast_to(log_p, shape + (k,)).reshape(-1, k)
        x = xp.broadcast_to(x, shape).reshape(-1)
        return F.select_item(full, x).reshape(shape)

    @property
    def entropy(self) -> chainlet.Variable:
        if self._given == 'logit':
            return -F.sum(self.p * self.log_p, axis=-1)
        return -F.sum(_modified_xlogx(self.p), axis=-1)

    @property
    def support(self) -> str:
        return '{0, ..., K-1}'

    def sample_n(self, n: int) -> chainlet.Variable:
        return chainlet.Variable(_sample_categories(self.p.array, n))


def _categorical_kl(dist1: Any, dist2: Any) -> chainlet.Variable:
    p = dist1.p
    xp = backend.get_array_module(p.array)
    positive = p.array > 0
    zeros = xp.zeros_like(p.array)
    # Terms with p == 0 contribute 0 even where log q is -inf (no -inf - -inf).
    diff = (F.where(positive, dist1.log_p, zeros)
            - F.where(positive, F.broadcast_to(dist2.log_p, p.shape), zeros))
    return F.sum(p * diff, axis=-1)


register_kl(Categorical, Categorical)(_categorical_kl)
