"""Chainer's ``chainer.distribution`` module path: the distribution base and the KL registry.

The implementation lives in :mod:`chainlet.distributions`; this module re-exports
``Distribution``, ``register_kl``, ``kl_divergence`` and ``cross_entropy`` so that code written
against Chainer's module layout imports unchanged. The same names are also available at the
top level (``chainlet.kl_divergence``), as in Chainer.

Example:
    >>> from chainlet import distribution, distributions
    >>> distribution.Distribution is distributions.Distribution
    True
"""
from __future__ import annotations

from chainlet.distributions.distribution import Distribution  # noqa: F401
from chainlet.distributions._kl import (  # noqa: F401
    _KLDIVERGENCE, cross_entropy, kl_divergence, register_kl)
