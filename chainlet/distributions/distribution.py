"""``Distribution``: the interface of chainlet's probability distributions.

A distribution object holds its parameters as :class:`~chainlet.Variable`\\ s and computes every
quantity (log-density, moments, entropy, reparameterized samples) with chainlet functions, so the
results can be differentiated with respect to the parameters, twice where the math allows.

Shapes follow Chainer: a sample has shape ``sample_shape + batch_shape + event_shape``;
``batch_shape`` indexes independent, differently parameterized distributions, ``event_shape``
the dependent dimensions of one draw (empty for scalar distributions). Functions of a sample
(``log_prob``, ``cdf``, ...) return shape ``sample_shape + batch_shape``.

Quantities a subclass does not define are derived from those it does where the relation is
exact (``prob`` from ``log_prob``, ``stddev`` from ``variance``, ``survival_function`` from
``cdf``, ...); what cannot be derived raises ``NotImplementedError`` naming the distribution, as
Chainer's interface does.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.Normal(np.zeros(3, np.float32), np.ones(3, np.float32))
    >>> d.batch_shape, d.event_shape
    ((3,), ())
    >>> d.sample((5,)).shape
    (5, 3)
"""
from __future__ import annotations

import copy
from typing import Any, Dict, Tuple, Union

import numpy

import chainlet
from chainlet import backend
from chainlet import functions as F


def _missing(dist: Any, what: str) -> NotImplementedError:
    return NotImplementedError(f'{type(dist).__name__} does not define {what}')


class Distribution:
    """Base class of probability distributions (Chainer's ``chainer.Distribution``).

    Subclasses define ``batch_shape``, ``event_shape``, ``params`` and the quantities they
    support; ``sample`` is implemented here on top of the subclass's ``sample_n``.
    """

    def _copy_to(self, target: 'Distribution') -> 'Distribution':
        target.__dict__ = copy.copy(self.__dict__)
        return target

    def __repr__(self) -> str:
        names = ', '.join(f'{k}={getattr(v, "shape", v)}' for k, v in self._params_or_empty())
        return f'{type(self).__name__}({names})'

    def _params_or_empty(self) -> Any:
        try:
            return sorted(self.params.items())
        except NotImplementedError:
            return []

    # Shapes and parameters -----------------------------------------------------------------
    @property
    def batch_shape(self) -> Tuple[int, ...]:
        """The shape of the batch of independent distributions."""
        raise _missing(self, 'batch_shape')

    @property
    def event_shape(self) -> Tuple[int, ...]:
        """The shape of one draw of one distribution of the batch."""
        raise _missing(self, 'event_shape')

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        """The parameters as a dict of Variables (the constructor's keyword names)."""
        raise _missing(self, 'params')

    @property
    def xp(self) -> Any:
        """The array module (NumPy or CuPy) of the parameters."""
        for value in self.params.values():
            return backend.get_array_module(value)
        return numpy

    @property
    def device(self) -> Any:
        """The device of the parameters."""
        for value in self.params.values():
            return backend.get_device_from_array(chainlet.as_array(value))
        return backend.CpuDevice()

    # Functions of a sample -----------------------------------------------------------------
    def log_prob(self, x: Any) -> chainlet.Variable:
        """The logarithm of the density (or mass) at ``x``.

        Args:
            x: Values of shape ``sample_shape + batch_shape + event_shape``.

        Returns:
            A Variable of shape ``sample_shape + batch_shape``.
        """
        raise _missing(self, 'log_prob')

    def prob(self, x: Any) -> chainlet.Variable:
        """The density (or mass) at ``x``; ``exp(log_prob(x))``."""
        return F.exp(self.log_prob(x))

    def cdf(self, x: Any) -> chainlet.Variable:
        """The cumulative distribution function at ``x``."""
        raise _missing(self, 'cdf')

    def log_cdf(self, x: Any) -> chainlet.Variable:
        """The logarithm of the cumulative distribution function at ``x``."""
        return F.log(self.cdf(x))

    def survival_function(self, x: Any) -> chainlet.Variable:
        """The survival function ``1 - cdf(x)``."""
        return 1 - self.cdf(x)

    def log_survival_function(self, x: Any) -> chainlet.Variable:
        """The logarithm of the survival function at ``x``."""
        return F.log(self.survival_function(x))

    def icdf(self, x: Any) -> chainlet.Variable:
        """The inverse of the cumulative distribution function (quantile function) at ``x``."""
        raise _missing(self, 'icdf')

    def perplexity(self, x: Any) -> chainlet.Variable:
        """``exp(-log_prob(x))``."""
        return F.exp(-self.log_prob(x))

    # Properties ------------------------------------------------------------------------------
    @property
    def entropy(self) -> chainlet.Variable:
        """The entropy, of shape ``batch_shape``."""
        raise _missing(self, 'entropy')

    @property
    def mean(self) -> chainlet.Variable:
        """The mean, of shape ``batch_shape + event_shape``."""
        raise _missing(self, 'mean')

    @property
    def mode(self) -> chainlet.Variable:
        """The mode, of shape ``batch_shape + event_shape``."""
        raise _missing(self, 'mode')

    @property
    def variance(self) -> chainlet.Variable:
        """The variance, of shape ``batch_shape + event_shape``."""
        raise _missing(self, 'variance')

    @property
    def stddev(self) -> chainlet.Variable:
        """The standard deviation; ``sqrt(variance)``."""
        return F.sqrt(self.variance)

    @property
    def covariance(self) -> chainlet.Variable:
        """The covariance matrix of a distribution over vectors."""
        raise _missing(self, 'covariance')

    @property
    def support(self) -> str:
        """A string naming the support, as Chainer's (``'real'``, ``'positive'``, ...)."""
        raise _missing(self, 'support')

    # Sampling --------------------------------------------------------------------------------
    def sample(self, sample_shape: Union[int, Tuple[int, ...]] = ()) -> chainlet.Variable:
        """Draw samples; reparameterized (differentiable) where the distribution allows.

        Args:
            sample_shape: An int or a tuple of ints, the leading shape of the result.

        Returns:
            A Variable of shape ``sample_shape + batch_shape + event_shape``.
        """
        if isinstance(sample_shape, (int, numpy.integer)):
            sample_shape = (int(sample_shape),)
        sample_shape = tuple(int(s) for s in sample_shape)
        n = 1
        for s in sample_shape:
            n *= s
        samples = self.sample_n(n)
        return samples.reshape(sample_shape + self.batch_shape + self.event_shape)

    def sample_n(self, n: int) -> chainlet.Variable:
        """Draw ``n`` samples; the result has shape ``(n,) + batch_shape + event_shape``."""
        raise _missing(self, 'sample_n')


class ScalarDistribution(Distribution):
    """A distribution of scalar events whose batch shape is the broadcast of its parameters.

    A subclass names its parameters once in ``param_names`` (attributes holding Variables, in
    Chainer's order); ``params``, ``batch_shape`` and ``event_shape`` follow from them.

    Example:
        >>> import numpy as np
        >>> from chainlet import distributions as D
        >>> d = D.Laplace(np.zeros((2, 1), np.float32), np.ones(3, np.float32))
        >>> d.batch_shape, d.event_shape, sorted(d.params)
        ((2, 3), (), ['loc', 'scale'])
    """

    param_names: Tuple[str, ...] = ()

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(numpy.broadcast_shapes(*(tuple(getattr(self, n).shape)
                                              for n in self.param_names)))

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return ()

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        return {n: getattr(self, n) for n in self.param_names}
