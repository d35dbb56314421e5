"""Losses of variational auto-encoders: Gaussian KL divergence and negative log-likelihoods.

As in Chainer these are compositions of differentiable functions, so they support
backpropagation of any order.
"""
from __future__ import annotations

import math
from typing import Any

from chainlet import type_check
from chainlet.functions.loss._common import check_reduce, data_of
from chainlet.functions.math.exponential import exp
from chainlet.functions.math.sum import mean as mean_
from chainlet.functions.math.sum import sum as sum_
from chainlet.functions.activation.softplus import softplus
from chainlet.variable import Variable, as_variable

_REDUCE = ('sum', 'mean', 'no')
_LOG_2PI = math.log(2 * math.pi)


def _reduce(loss: Variable, reduce: str) -> Variable:
    if reduce == 'sum':
        return sum_(loss)
    if reduce == 'mean':
        return mean_(loss)
    return loss


def _check_floats(func: str, names: tuple, arrays: tuple) -> None:
    for n, a in zip(names, arrays):
        type_check.argument(func, n, a, kind='f')
    type_check.same_dtype(func, names, arrays)
    type_check.broadcastable(func, names, arrays)


def gaussian_kl_divergence(mean: Any, ln_var: Any, reduce: str = 'sum') -> Variable:
    """KL divergence of :math:`N(\\mu, \\sigma^2)` from the standard normal :math:`N(0, 1)`.

    Elementwise :math:`\\frac12 (\\mu^2 + \\sigma^2 - \\log \\sigma^2 - 1)`.

    Args:
        mean: Float array :math:`\\mu`.
        ln_var: :math:`\\log \\sigma^2`, same dtype, broadcastable with ``mean``.
        reduce: ``'sum'``, ``'mean'`` (0-d results) or ``'no'`` (elementwise).

    Returns:
        Variable of the inputs' dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.gaussian_kl_divergence(np.array([0.0, 1.0]), np.array([0.0, 0.0])).array
        array(0.5)
    """
    check_reduce('gaussian_kl_divergence', reduce, _REDUCE)
    _check_floats('gaussian_kl_divergence', ('mean', 'ln_var'),
                  (data_of(mean), data_of(ln_var)))
    mean, ln_var = as_variable(mean), as_variable(ln_var)
    loss = (mean * mean + exp(ln_var) - ln_var - 1.0) * 0.5
    return _reduce(loss, reduce)


def gaussian_nll(x: Any, mean: Any, ln_var: Any, reduce: str = 'sum') -> Variable:
    """Negative log-likelihood of ``x`` under :math:`N(\\mu, \\sigma^2)` (diagonal).

    Elementwise :math:`\\frac12 (\\log 2\\pi + \\log \\sigma^2) + \\frac{(x - \\mu)^2}{2
    \\sigma^2}`.

    Args:
        x: Float array of observations.
        mean: :math:`\\mu`, same dtype, broadcastable with ``x``.
        ln_var: :math:`\\log \\sigma^2`, same dtype, broadcastable with ``x``.
        reduce: ``'sum'``, ``'mean'`` (0-d results) or ``'no'`` (elementwise).

    Returns:
        Variable of the inputs' dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.gaussian_nll(np.array([1.0]), np.array([0.0]), np.array([0.0])).array
        array(1.41893853)
    """
    check_reduce('gaussian_nll', reduce, _REDUCE)
    _check_floats('gaussian_nll', ('x', 'mean', 'ln_var'),
                  (data_of(x), data_of(mean), data_of(ln_var)))
    x, mean, ln_var = as_variable(x), as_variable(mean), as_variable(ln_var)
    diff = x - mean
    loss = (ln_var + _LOG_2PI) * 0.5 + diff * diff * exp(-ln_var) * 0.5
    return _reduce(loss, reduce)


def bernoulli_nll(x: Any, y: Any, reduce: str = 'sum') -> Variable:
    """Negative log-likelihood of ``x`` under Bernoulli distributions with logits ``y``.

    Elementwise :math:`\\log(1 + e^{y}) - x y` (that is :math:`-x \\log p - (1 - x)
    \\log(1 - p)` with :math:`p = \\sigma(y)`), computed without overflow.

    Args:
        x: Float array of observations in ``[0, 1]``.
        y: Logits (pre-sigmoid), same dtype, broadcastable with ``x``.
        reduce: ``'sum'``, ``'mean'`` (0-d results) or ``'no'`` (elementwise).

    Returns:
        Variable of the inputs' dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.bernoulli_nll(np.array([1.0, 0.0]), np.array([0.0, -1e4])).array
        array(0.69314718)
    """
    check_reduce('bernoulli_nll', reduce, _REDUCE)
    _check_floats('bernoulli_nll', ('x', 'y'), (data_of(x), data_of(y)))
    x, y = as_variable(x), as_variable(y)
    loss = softplus(y) - x * y
    return _reduce(loss, reduce)
