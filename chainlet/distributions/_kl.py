"""The KL-divergence registry: ``register_kl`` and ``kl_divergence`` (Chainer's API).

The module is private (``_kl``) so that ``chainlet.distributions.kl_divergence`` is the function,
not a module of the same name; Chainer keeps these in ``chainer.distribution``, which
:mod:`chainlet.distribution` mirrors.

A KL divergence between two distribution types is registered once with the decorator
``register_kl(Type1, Type2)``; ``kl_divergence(p, q)`` finds the most specific registered pair for
``type(p)`` and ``type(q)`` along their MROs (so a subclass inherits its base's formula).

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> p = D.Normal(np.float32(0.0), np.float32(1.0))
    >>> q = D.Normal(np.float32(1.0), np.float32(1.0))
    >>> float(D.kl_divergence(p, q).array)
    0.5
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Tuple, Type

import chainlet

_KLDIVERGENCE: Dict[Tuple[type, type], Callable[..., Any]] = {}


def register_kl(dist1: Type[Any], dist2: Type[Any]) -> Callable[[Callable[..., Any]], Any]:
    """Decorator that registers a function computing ``KL(dist1 || dist2)``.

    Args:
        dist1: The type of the first distribution.
        dist2: The type of the second distribution.

    Returns:
        A decorator taking ``f(p, q) -> Variable`` and returning it unchanged.
    """
    def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
        _KLDIVERGENCE[dist1, dist2] = func
        return func
    return decorator


def _lookup(type1: type, type2: type) -> Callable[..., Any]:
    for t1 in type1.__mro__:
        for t2 in type2.__mro__:
            func = _KLDIVERGENCE.get((t1, t2))
            if func is not None:
                return func
    raise NotImplementedError(
        f'kl_divergence: no KL divergence is registered for ({type1.__name__}, '
        f'{type2.__name__}); register one with chainlet.distributions.register_kl')


def kl_divergence(dist1: Any, dist2: Any) -> chainlet.Variable:
    """The Kullback-Leibler divergence ``KL(dist1 || dist2)``, of shape ``batch_shape``.

    Args:
        dist1: The first distribution.
        dist2: The second distribution.

    Returns:
        A Variable, differentiable with respect to both distributions' parameters.
    """
    return _lookup(type(dist1), type(dist2))(dist1, dist2)


def cross_entropy(dist1: Any, dist2: Any) -> chainlet.Variable:
    """The cross entropy ``H(dist1) + KL(dist1 || dist2)``.

    Args:
        dist1: The first distribution.
        dist2: The second distribution.

    Returns:
        A Variable of shape ``batch_shape``.
    """
    return dist1.entropy + kl_divergence(dist1, dist2)
