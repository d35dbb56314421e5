"""``Bernoulli``: a distribution over ``{0, 1}`` parameterized by ``p`` or by ``logit``.

The log-probability is the relaxation ``x * logit - softplus(logit)`` (exact for ``x`` in
``{0, 1}``); where ``p`` is exactly 1 or 0 (an infinite logit) it takes its limits ``log(x)`` and
``log(1 - x)`` instead of NaN, with zero gradient there. ``binary_check=True`` gives values other
than 0 and 1 probability 0 (Chainer's behaviour).

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Bernoulli(p=np.array([0.25, 1.0], np.float32))
    >>> d.prob(np.array([1.0, 0.0], np.float32)).array
    array([0.25, 0.  ], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy

import chainlet
from chainlet import backend
from chainlet import functions as F
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import _modified_xlogx, as_param, float_like, raw
from chainlet.utils.cache import cached_property


def _bernoulli_log_prob(logit: Any, x: Any, binary_check: bool = False) -> chainlet.Variable:
    """``log p(x)`` of a Bernoulli with the given logit, differentiable in ``logit``.

    Args:
        logit: The log-odds (array or Variable), broadcastable to ``x``.
        x: Values; 0 and 1 exactly, other values as described in the module docstring.
        binary_check: Give values other than 0 and 1 a log-probability of ``-inf``.

    Returns:
        A Variable of the broadcast shape.
    """
    logit = as_param(logit)
    x = raw(float_like(x, logit))
    xp = backend.get_array_module(x)
    shape = tuple(xp.broadcast(x, logit.array).shape)
    if logit.shape != shape:
        logit = F.broadcast_to(logit, shape)
    x = xp.broadcast_to(x, shape)
    finite = xp.asarray(xp.isfinite(logit.array))
    # The relaxation x * logit - softplus(logit), evaluated at a finite stand-in where the
    # logit is infinite so that neither the value nor the gradient there becomes NaN.
    safe = F.where(finite, logit, xp.zeros(shape, dtype=logit.dtype))
    y = x * safe - F.softplus(safe)
    with numpy.errstate(divide='ignore', invalid='ignore'):
        # p == 1 (logit +inf) or p == 0 (logit -inf): the limits log(x) and log(1 - x).
        limit = xp.where(logit.array > 0, xp.log(x), xp.log1p(-x)).astype(logit.dtype)
    y = F.where(finite, y, limit)
    if binary_check:
        invalid = xp.asarray((x != 0) & (x != 1))
        y = F.where(invalid, xp.full(shape, -xp.inf, dtype=logit.dtype), y)
    return y


class Bernoulli(distribution.Distribution):
    """Bernoulli distribution.

    Args:
        p: The probability of 1; give either this or ``logit``.
        logit: The log-odds ``log(p / (1 - p))``.
        binary_check: Give values other than 0 and 1 probability 0 in ``log_prob``/``prob``.

    Example:
        >>> import numpy as np
        >>> d = Bernoulli(logit=np.zeros(2, np.float32))
        >>> d.mean.array
        array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, p: Optional[Any] = None, logit: Optional[Any] = None,
                 binary_check: bool = False) -> None:
        if (p is None) == (logit is None):
            raise ValueError('Bernoulli: give exactly one of p and logit')
        self._given = 'p' if p is not None else 'logit'
        if p is not None:
            self.__dict__['p'] = dict.fromkeys((True, False), as_param(p))
        else:
            self.__dict__['logit'] = dict.fromkeys((True, False), as_param(logit))
        self.binary_check = binary_check

    @cached_property
    def p(self) -> chainlet.Variable:
        return F.sigmoid(self.logit)

    @cached_property
    def logit(self) -> chainlet.Variable:
        with numpy.errstate(divide='ignore'):
            return F.log(self.p) - F.log1p(-self.p)

    @property
    def _param(self) -> chainlet.Variable:
        return self.p if self._given == 'p' else self.logit

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(self._param.shape)

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return ()

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        # Always the logit, whichever parameter was given (as Chainer): code that rebuilds a
        # distribution with ``Bernoulli(**d.params)`` or compares params then sees one key.
        return {'logit': self.logit}

    def log_prob(self, x: Any) -> chainlet.Variable:
        return _bernoulli_log_prob(self.logit, x, self.binary_check)

    @property
    def entropy(self) -> chainlet.Variable:
        p = self.p
        return -(_modified_xlogx(p) + _modified_xlogx(1 - p))

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
        u = xp.random.uniform(size=(n,) + p.shape)
        return chainlet.Variable((u < p).astype(p.dtype))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(dist1: Bernoulli, dist2: Bernoulli) -> chainlet.Variable:
    # In logits: log p = -softplus(-l), log(1 - p) = -softplus(l).
    l1, l2 = dist1.logit, dist2.logit
    p = dist1.p
    return (p * (F.softplus(-l2) - F.softplus(-l1))
            + (1 - p) * (F.softplus(l2) - F.softplus(l1)))
