"""Batch renormalization (Ioffe 2017), a composition of chainlet functions.

The batch statistics are corrected towards the running ones by ``r = sigma_B / sigma`` and
``d = (mu_B - mu) / sigma``, clipped to ``[1/rmax, rmax]`` and ``[-dmax, dmax]`` and treated as
constants in backward (as in the paper and in Chainer). Everything else, the batch mean and
standard deviation included, is built from chainlet functions, so gradients of any order come
from those.
"""
from __future__ import annotations

import warnings
from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.reshape import reshape
from chainlet.functions.math.sqrt import sqrt
from chainlet.functions.math.sum import mean as _mean
from chainlet.functions.normalization.batch_normalization import fixed_batch_normalization
from chainlet.variable import Variable, as_variable

_FUNC = 'batch_renormalization'


def batch_renormalization(x: Any, gamma: Any, beta: Any, rmax: float, dmax: float,
                          eps: float = 2e-5, running_mean: Any = None, running_var: Any = None,
                          decay: float = 0.9, update_statistics: bool = False) -> Variable:
    """Batch renormalization: batch normalization corrected towards the running statistics.

    With the batch mean :math:`\\mu_B` and standard deviation
    :math:`\\sigma_B = \\sqrt{\\mathrm{var}_B + \\epsilon}` over axis 0 and the axes after the
    channel axes, and the running ones :math:`\\mu`, :math:`\\sigma = \\sqrt{var + \\epsilon}`:

    .. math::
        r = \\mathrm{clip}(\\sigma_B / \\sigma, 1/r_{max}, r_{max}), \\quad
        d = \\mathrm{clip}((\\mu_B - \\mu) / \\sigma, -d_{max}, d_{max}), \\\\
        y = \\gamma \\left(\\frac{x - \\mu_B}{\\sigma_B} r + d\\right) + \\beta,

    with ``r`` and ``d`` held constant in backward.

    Args:
        x: Float input of shape ``(N, C, ...)`` (``gamma.ndim`` channel axes after the batch).
        gamma: Scale, of shape ``x.shape[1:1 + gamma.ndim]``, ``x``'s dtype.
        beta: Shift, of ``gamma``'s shape and dtype.
        rmax: Upper clip of ``r`` (``>= 1``).
        dmax: Clip of ``|d|`` (``>= 0``).
        eps: Added to the variances.
        running_mean: Running mean (``gamma``'s shape); zeros when ``None``.
        running_var: Running (unbiased) variance; zeros when ``None``.
        decay: Decay of the running averages.
        update_statistics: Update ``running_mean`` and ``running_var`` in place with the batch
            statistics (the variance with the ``m / (m - 1)`` correction).

    Returns:
        Variable of ``x``'s shape and dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[0.0], [2.0]], np.float32)
        >>> g, b = np.ones(1, np.float32), np.zeros(1, np.float32)
        >>> F.batch_renormalization(x, g, b, rmax=1.0, dmax=0.0, eps=0.0,
        ...                         running_mean=np.ones(1, np.float32),
        ...                         running_var=np.ones(1, np.float32)).array
        array([[-1.],
               [ 1.]], dtype=float32)

    See: `Batch Renormalization: Towards Reducing Minibatch Dependence in Batch-Normalized
    Models <https://arxiv.org/abs/1702.03275>`_.
    """
    for name, a in (('x', x), ('gamma', gamma), ('beta', beta)):
        type_check.array_input(_FUNC, name, a)
    x, gamma, beta = as_variable(x), as_variable(gamma), as_variable(beta)
    type_check.argument(_FUNC, 'x', x.array, kind='f', min_ndim=gamma.ndim + 1)
    type_check.argument(_FUNC, 'gamma', gamma.array, dtype=x.dtype,
                        shape=x.shape[1:1 + gamma.ndim])
    type_check.argument(_FUNC, 'beta', beta.array, dtype=x.dtype, shape=gamma.shape)
    xp = backend.get_array_module(x.array)
    if running_mean is None:
        running_mean = xp.zeros(gamma.shape, x.dtype)
    if running_var is None:
        running_var = xp.zeros(gamma.shape, x.dtype)

    head = gamma.ndim + 1
    axis = (0,) + tuple(range(head, x.ndim))
    stat_shape = (1,) + gamma.shape + (1,) * (x.ndim - head)
    mean = _mean(x, axis=axis, keepdims=True)
    centered = x - broadcast_to(mean, x.shape)
    var = _mean(centered * centered, axis=axis, keepdims=True)
    std = sqrt(var + eps)

    running_sigma = xp.sqrt(running_var + eps).reshape(stat_shape)
    r = xp.clip(std.array / running_sigma, 1.0 / rmax, rmax).astype(x.dtype, copy=False)
    d = xp.clip((mean.array - running_mean.reshape(stat_shape)) / running_sigma,
                -dmax, dmax).astype(x.dtype, copy=False)
    x_hat = centered / broadcast_to(std, x.shape) * xp.broadcast_to(r, x.shape) + \
        xp.broadcast_to(d, x.shape)
    y = broadcast_to(reshape(gamma, stat_shape), x.shape) * x_hat + \
        broadcast_to(reshape(beta, stat_shape), x.shape)

    if update_statistics:
        m = x.size // max(gamma.size, 1)
        unbias = m / max(m - 1., 1.)
        running_mean *= decay
        running_mean += (1 - decay) * mean.array.reshape(gamma.shape)
        running_var *= decay
        running_var += (1 - decay) * unbias * var.array.reshape(gamma.shape)
    return y


def fixed_batch_renormalization(x: Any, gamma: Any, beta: Any, mean: Any, var: Any,
                                eps: float = 2e-5) -> Variable:
    """Deprecated alias of :func:`~chainlet.functions.fixed_batch_normalization` (with given
    statistics, batch renormalization is batch normalization); warns ``DeprecationWarning``.

    Example:
        >>> import warnings, numpy as np, chainlet.functions as F
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore')
        ...     y = F.fixed_batch_renormalization(np.ones((1, 1)), np.ones(1), np.zeros(1),
        ...                                       np.zeros(1), np.ones(1), eps=0.0)
        >>> y.array
        array([[1.]])
    """
    warnings.warn('fixed_batch_renormalization is deprecated; use fixed_batch_normalization',
                  DeprecationWarning, stacklevel=2)
    return fixed_batch_normalization(x, gamma, beta, mean, var, eps)
