"""Chainer's pluggable batch-normalization implementations (``impl_selector``).

Chainer's :class:`~chainlet.functions.normalization.batch_normalization.BatchNormalization`
takes an ``impl_selector(function, inputs)`` that returns the object computing the statistics,
the normalization and its gradient. Code built on Chainer subclasses
:class:`GeneralBatchNormalizationImpl` to change one step: ChainerMN's multi-node batch
normalization overrides :meth:`~GeneralBatchNormalizationImpl.get_mean_and_var` and
:meth:`~GeneralBatchNormalizationImpl.get_ggamma_and_gbeta` to average them over processes.
chainlet's own batch normalization does not go through these objects (its path is fused and
faster); they run only when a selector is given.

Example:
    >>> import numpy as np
    >>> from chainlet.functions.normalization.batch_normalization import (
    ...     BatchNormalization, GeneralBatchNormalizationImpl)
    >>> class Doubled(GeneralBatchNormalizationImpl):
    ...     def get_mean_and_var(self, axis, gamma, x, xp, interm_dtype):
    ...         mean, var = super().get_mean_and_var(axis, gamma, x, xp, interm_dtype)
    ...         return mean, var * 4          # as if the data were twice as spread
    >>> x = np.array([[-1.0], [1.0]], np.float32)
    >>> g, b = np.ones(1, np.float32), np.zeros(1, np.float32)
    >>> f = BatchNormalization(eps=0.0, impl_selector=lambda func, inputs: Doubled())
    >>> f.apply((x, g, b))[0].array
    array([[-0.5],
           [ 0.5]], dtype=float32)
"""
from __future__ import annotations

from typing import Any

import numpy


class _BatchNormalizationImpl:
    """The interface: ``forward`` and ``backward`` with Chainer's keyword arguments."""

    def forward(self, axis: tuple, gamma: Any, x: Any, x_layout: Any, xp: Any, expander: tuple,
                beta: Any, eps: float, decay: float, running_mean: Any,
                running_var: Any) -> tuple:
        """Return ``(y, y_layout, running_mean, running_var, mean, var, inv_std,
        forward_data)``; ``mean``, ``var`` and ``inv_std`` have ``gamma``'s shape."""
        raise TypeError(f'{type(self).__name__} must define forward()')

    def backward(self, axis: tuple, gamma: Any, gy: Any, x: Any, x_layout: Any, xp: Any,
                 expander: tuple, mean: Any, inv_std: Any, eps: float, var: Any,
                 forward_data: Any) -> tuple:
        """Return ``(gx, gx_layout, ggamma, gbeta)``."""
        raise TypeError(f'{type(self).__name__} must define backward()')


class GeneralBatchNormalizationImpl(_BatchNormalizationImpl):
    """Batch normalization with array-module operations (NumPy or CuPy), step by step.

    ``axis`` are the axes averaged over; ``expander`` indexes a ``gamma``-shaped array so that
    it broadcasts against ``x`` (``gamma[expander]``).
    """

    def forward(self, axis, gamma, x, x_layout, xp, expander, beta, eps, decay,
                running_mean, running_var):
        dtype = numpy.promote_types(x.dtype, gamma.dtype)
        mean, var = self.get_mean_and_var(axis, gamma, x, xp, dtype)
        inv_std = 1 / xp.sqrt(var + eps, dtype=dtype)
        g = gamma[expander].astype(dtype, copy=False)
        b = beta[expander].astype(dtype, copy=False)
        y = (x - mean[expander]) * inv_std[expander] * g + b
        if running_mean is not None:
            m = x.size // max(gamma.size, 1)
            adjust = m / max(m - 1.0, 1.0)  # unbiased estimate of the variance
            running_mean *= decay
            running_mean += (1 - decay) * mean
            running_var *= decay
            running_var += (1 - decay) * adjust * var
        return (y.astype(x.dtype, copy=False), x_layout, running_mean, running_var,
                mean, var, inv_std, None)

    def get_mean_and_var(self, axis: tuple, gamma: Any, x: Any, xp: Any,
                         interm_dtype: Any) -> tuple:
        """The batch's mean and biased variance over ``axis``, of ``gamma``'s shape."""
        return x.mean(axis=axis, dtype=interm_dtype), x.var(axis=axis, dtype=interm_dtype)

    def get_ggamma_and_gbeta(self, axis: tuple, gamma: Any, gy: Any, x_hat: Any,
                             xp: Any) -> tuple:
        """``(gbeta, ggamma)``: the sums of ``gy`` and ``gy * x_hat`` over ``axis``."""
        gbeta = gy.sum(axis=axis, dtype=gamma.dtype)
        ggamma = (gy * x_hat).sum(axis=axis, dtype=gamma.dtype)
        return gbeta, ggamma

    def backward(self, axis, gamma, gy, x, x_layout, xp, expander, mean, inv_std, eps, var,
                 forward_data):
        x_hat = (x - mean[expander]) * inv_std[expander]
        gbeta, ggamma = self.get_ggamma_and_gbeta(axis, gamma, gy, x_hat, xp)
        inv_m = gamma.dtype.type(1.0 / max(x.size // max(gamma.size, 1), 1))
        gx = (gamma * inv_std)[expander] * (
            gy - (x_hat * ggamma[expander] + gbeta[expander]) * inv_m)
        return gx.astype(x.dtype, copy=False), None, ggamma, gbeta
