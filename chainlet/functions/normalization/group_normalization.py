"""Group normalization: normalize each sample over groups of channels."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import _config
from chainlet import type_check
from chainlet.functions.array.reshape import reshape
from chainlet.functions.normalization._standardize import standardize
from chainlet.variable import Variable, as_array


def group_normalization(x: Any, groups: int, gamma: Any, beta: Any,
                        eps: float = 1e-5) -> Variable:
    """Group normalization: standardize each group of channels of each sample.

    The ``C`` channels of ``x`` (axis 1) are split into ``groups`` consecutive groups; each
    sample's group (its channels and all following axes) is normalized to zero mean and unit
    variance, then channel ``c`` is scaled by ``gamma[c]`` and shifted by ``beta[c]``.
    ``groups=1`` normalizes each whole sample; ``groups=C`` is instance normalization.

    Args:
        x: Variable or array of floats, shape ``(N, C, ...)``.
        groups: Number of groups; must divide ``C``.
        gamma: Scale, shape ``(C,)``, dtype of ``x``.
        beta: Shift, shape ``(C,)``, dtype of ``x``.
        eps: Added to the variance before the square root.

    Returns:
        Variable of the shape of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[[1.0], [3.0], [10.0], [30.0]]], np.float32)  # (1, 4, 1)
        >>> y = F.group_normalization(x, 2, np.ones(4, np.float32), np.zeros(4, np.float32))
        >>> np.round(y.array[0, :, 0], 3)
        array([-1.,  1., -1.,  1.], dtype=float32)
    """
    if not isinstance(groups, (int, numpy.integer)) or isinstance(groups, bool):
        raise TypeError(f'group_normalization: argument groups: expected an int, got '
                        f'{type(groups).__name__}')
    if groups <= 0:
        raise ValueError(f'group_normalization: argument groups: expected a positive int, got '
                         f'{groups}')
    xa = as_array(x)
    if _config.config.type_check:
        type_check.argument('group_normalization', 'x', xa, kind='f', min_ndim=2)
        for name, p in (('gamma', as_array(gamma)), ('beta', as_array(beta))):
            type_check.argument('group_normalization', name, p, dtype=xa.dtype,
                                shape=(xa.shape[1],))
    shape = xa.shape
    n, c = shape[:2]
    if c % groups:
        raise ValueError(f'group_normalization: argument groups: expected a divisor of the '
                         f'number of channels {c}, got {groups}')
    rest = 1
    for s in shape[2:]:
        rest *= s
    x_hat, _ = standardize(reshape(x, (n, groups, (c // groups) * rest)), (2,), eps)
    x_hat = reshape(x_hat, shape)
    pshape = (1, c) + (1,) * (len(shape) - 2)
    return x_hat * reshape(gamma, pshape) + reshape(beta, pshape)
