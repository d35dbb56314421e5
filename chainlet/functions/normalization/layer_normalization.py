"""Layer normalization: normalize each sample over its features."""
from __future__ import annotations

from typing import Any

from chainlet import _config
from chainlet import type_check
from chainlet.functions.array.reshape import reshape
from chainlet.functions.normalization._standardize import standardize
from chainlet.variable import Variable, as_array


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> Variable:
    """Layer normalization: standardize each row of ``x``, then scale and shift.

    .. math::
        y_{ij} = \\gamma_j \\frac{x_{ij} - \\mu_i}{\\sqrt{\\sigma_i^2 + \\epsilon}} + \\beta_j

    where :math:`\\mu_i` and :math:`\\sigma_i^2` are the mean and (biased) variance of row ``i``.
    Unlike batch normalization, the result of a sample never depends on the rest of the batch.

    Args:
        x: Variable or array of floats, shape ``(N, C)``.
        gamma: Scale, shape ``(C,)``, dtype of ``x``.
        beta: Shift, shape ``(C,)``, dtype of ``x``.
        eps: Added to the variance before the square root.

    Returns:
        Variable of shape ``(N, C)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[1.0, 3.0], [5.0, 5.0]], np.float32)
        >>> y = F.layer_normalization(x, np.ones(2, np.float32), np.zeros(2, np.float32))
        >>> np.round(y.array, 3)
        array([[-1.,  1.],
               [ 0.,  0.]], dtype=float32)
    """
    if _config.config.type_check:
        xa, ga, ba = as_array(x), as_array(gamma), as_array(beta)
        type_check.argument('layer_normalization', 'x', xa, kind='f', ndim=2)
        for name, p in (('gamma', ga), ('beta', ba)):
            type_check.argument('layer_normalization', name, p, dtype=xa.dtype,
                                shape=(xa.shape[1],))
    x_hat, _ = standardize(x, (1,), eps)
    c = x_hat.shape[1]
    return x_hat * reshape(gamma, (1, c)) + reshape(beta, (1, c))
