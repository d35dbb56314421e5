"""``MultivariateNormal``: the Gaussian over vectors, parameterized by a Cholesky factor.

With ``scale_tril = L`` (lower triangular, positive diagonal) the covariance is ``L L^T``.
``log_prob`` whitens ``x - loc`` with ``L^{-1}`` (``_triangular_inv``, a differentiable
triangular inverse that reads only ``L``'s triangle), so no covariance is ever inverted;
``log det`` is ``2 * sum(log diag L)``. Samples ``loc + L eps`` are reparameterized.

Example:
    >>> import numpy as np
    >>> from chainlet import distributions as D
    >>> d = D.MultivariateNormal(np.zeros(2, np.float32), scale_tril=np.eye(2, dtype=np.float32))
    >>> d.batch_shape, d.event_shape, round(float(d.log_prob(np.zeros(2, np.float32)).array), 4)
    ((), (2,), -1.8379)
"""
from __future__ import annotations

import math
from typing import Any, Dict, Optional, Tuple

import numpy

import chainlet
from chainlet import backend
from chainlet import functions as F
from chainlet import type_check
from chainlet.distributions import distribution
from chainlet.distributions._kl import register_kl
from chainlet.distributions.utils import as_param, float_like
from chainlet.function_node import FunctionNode

_LOG_2PI = math.log(2 * math.pi)
# Chainer's public per-dimension constants of the entropy and of the log density.
ENTROPYC = 0.5 * math.log(2 * math.pi * math.e)
LOGPROBC = -0.5 * _LOG_2PI
# Chainer's flag of whether the CPU path can run (it needed SciPy); chainlet's needs only NumPy.
available_cpu = True


def _triangle_mask(xp: Any, d: int, lower: bool, dtype: Any) -> Any:
    ones = numpy.ones((d, d), dtype)
    return xp.asarray(numpy.tril(ones) if lower else numpy.triu(ones))


class TriangularInv(FunctionNode):
    """Inverse of (a batch of) triangular matrices; entries outside the triangle are ignored."""

    def __init__(self, lower: bool = True) -> None:
        self.lower = lower

    def _check_arrays(self, in_data: Tuple[Any, ...]) -> None:
        type_check.count('_triangular_inv', in_data, 1)
        x, = in_data
        type_check.float_input('_triangular_inv', 'x', x)
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise type_check.fail('_triangular_inv', 'x', 'square matrices (..., d, d)',
                                  str(x.shape))

    def forward(self, inputs: Tuple[Any, ...]) -> Tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        d = x.shape[-1]
        if d == 0:
            y = xp.empty(x.shape, dtype=x.dtype)
        else:
            y = xp.linalg.inv(x * _triangle_mask(xp, d, self.lower, x.dtype))
            y = (y * _triangle_mask(xp, d, self.lower, x.dtype)).astype(x.dtype, copy=False)
        self.retain_outputs((0,))
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        xp = backend.get_array_module(y.array)
        yt = F.swapaxes(y, -1, -2)
        gx = -F.matmul(yt, F.matmul(gy, yt))
        return gx * _triangle_mask(xp, y.shape[-1], self.lower, y.dtype),


def _triangular_inv(x: Any, lower: bool = True) -> chainlet.Variable:
    """Differentiable inverse of triangular matrices (Chainer's private helper).

    Args:
        x: A float array or Variable of shape ``(..., d, d)``; only its lower (or upper)
            triangle is read.
        lower: Whether ``x`` is lower triangular.

    Returns:
        A Variable with the inverses, triangular like ``x``.
    """
    return TriangularInv(lower).apply((x,))[0]


def _log_det_tril(scale_tril: chainlet.Variable) -> chainlet.Variable:
    return F.sum(F.log(F.diagonal(scale_tril, axis1=-2, axis2=-1)), axis=-1)


class MultivariateNormal(distribution.Distribution):
    """Multivariate normal distribution ``N(loc, scale_tril scale_tril^T)``.

    Args:
        loc: The mean, shape ``batch_shape + (d,)``.
        scale_tril: The lower-triangular Cholesky factor of the covariance, shape
            ``batch_shape + (d, d)`` (keyword; required).

    Example:
        >>> import numpy as np
        >>> d = MultivariateNormal(np.zeros((4, 2), np.float32),
        ...                        scale_tril=np.tile(np.eye(2, dtype=np.float32), (4, 1, 1)))
        >>> d.sample(3).shape
        (3, 4, 2)
    """

    def __init__(self, loc: Any, scale_tril: Optional[Any] = None, **kwargs: Any) -> None:
        if kwargs:
            raise TypeError(f'MultivariateNormal got unexpected keyword arguments '
                            f'{sorted(kwargs)}')
        if scale_tril is None:
            raise ValueError('MultivariateNormal: scale_tril is required')
        self.loc = as_param(loc)
        self.scale_tril = as_param(scale_tril)
        if self.loc.ndim < 1 or self.scale_tril.shape != self.loc.shape + self.loc.shape[-1:]:
            raise ValueError(f'MultivariateNormal: scale_tril must have shape loc.shape + (d,) '
                             f'= {self.loc.shape + self.loc.shape[-1:]}; got '
                             f'{self.scale_tril.shape}')
        self.d = self.loc.shape[-1]

    @property
    def batch_shape(self) -> Tuple[int, ...]:
        return tuple(self.loc.shape[:-1])

    @property
    def event_shape(self) -> Tuple[int, ...]:
        return tuple(self.loc.shape[-1:])

    @property
    def params(self) -> Dict[str, chainlet.Variable]:
        return {'loc': self.loc, 'scale_tril': self.scale_tril}

    def log_prob(self, x: Any) -> chainlet.Variable:
        x = float_like(x, self.loc)
        diff = x - self.loc
        shape = diff.shape
        inv = _triangular_inv(self.scale_tril)
        inv = F.broadcast_to(inv, shape + (self.d,))
        z = F.matmul(inv, F.expand_dims(diff, -1))
        sq = F.sum(F.square(z), axis=(-2, -1))
        return -0.5 * sq - _log_det_tril(self.scale_tril) - 0.5 * self.d * _LOG_2PI

    @property
    def entropy(self) -> chainlet.Variable:
        return _log_det_tril(self.scale_tril) + 0.5 * self.d * (1 + _LOG_2PI)

    @property
    def mean(self) -> chainlet.Variable:
        return self.loc

    @property
    def covariance(self) -> chainlet.Variable:
        return F.matmul(self.scale_tril, F.swapaxes(self.scale_tril, -1, -2))

    @property
    def variance(self) -> chainlet.Variable:
        return F.sum(F.square(self.scale_tril), axis=-1)

    @property
    def support(self) -> str:
        return 'real'

    def sample_n(self, n: int) -> chainlet.Variable:
        xp = self.xp
        eps = xp.random.standard_normal((n,) + self.loc.shape + (1,)).astype(self.loc.dtype)
        tril = F.broadcast_to(self.scale_tril, (n,) + self.scale_tril.shape)
        return self.loc + F.matmul(tril, eps)[..., 0]


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(dist1: MultivariateNormal, dist2: MultivariateNormal) -> chainlet.Variable:
    inv2 = _triangular_inv(dist2.scale_tril)
    trace = F.sum(F.square(F.matmul(inv2, dist1.scale_tril)), axis=(-2, -1))
    z = F.matmul(inv2, F.expand_dims(dist2.loc - dist1.loc, -1))
    mahalanobis = F.sum(F.square(z), axis=(-2, -1))
    log_det = _log_det_tril(dist2.scale_tril) - _log_det_tril(dist1.scale_tril)
    return log_det + 0.5 * (trace + mahalanobis - dist1.d)
