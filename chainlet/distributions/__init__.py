"""Probability distributions (Chainer's ``chainer.distributions``), differentiable end to end.

Each distribution keeps its parameters as Variables and computes log-densities, moments,
entropies, CDFs and reparameterized samples with chainlet functions; ``kl_divergence`` looks up
closed forms registered with ``register_kl``. See ``docs/distributions.md``.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> p = D.Normal(np.zeros(3, np.float32), np.ones(3, np.float32))
    >>> p.log_prob(np.zeros(3, np.float32)).shape
    (3,)
"""
from __future__ import annotations

from chainlet.distributions.distribution import Distribution  # noqa: F401
from chainlet.distributions._kl import (  # noqa: F401
    cross_entropy, kl_divergence, register_kl)
from chainlet.distributions.normal import Normal  # noqa: F401
from chainlet.distributions.bernoulli import Bernoulli  # noqa: F401
from chainlet.distributions.categorical import Categorical  # noqa: F401
from chainlet.distributions.one_hot_categorical import OneHotCategorical  # noqa: F401
from chainlet.distributions.independent import Independent  # noqa: F401
from chainlet.distributions.multivariate_normal import MultivariateNormal  # noqa: F401
from chainlet.distributions.beta import Beta  # noqa: F401
from chainlet.distributions.cauchy import Cauchy  # noqa: F401
from chainlet.distributions.chisquare import Chisquare  # noqa: F401
from chainlet.distributions.dirichlet import Dirichlet  # noqa: F401
from chainlet.distributions.exponential import Exponential  # noqa: F401
from chainlet.distributions.gamma import Gamma  # noqa: F401
from chainlet.distributions.geometric import Geometric  # noqa: F401
from chainlet.distributions.gumbel import Gumbel  # noqa: F401
from chainlet.distributions.laplace import Laplace  # noqa: F401
from chainlet.distributions.log_normal import LogNormal  # noqa: F401
from chainlet.distributions.pareto import Pareto  # noqa: F401
from chainlet.distributions.poisson import Poisson  # noqa: F401
from chainlet.distributions.uniform import Uniform  # noqa: F401
