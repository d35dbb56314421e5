"""Group normalization: normalize each sample over groups of channels.

The samples' groups are flattened to rows of a 2-D array ``x`` of shape ``(rows, m)``. The
statistics of each row are computed once, as arrays, and the normalized rows are written as
``x_hat = _MulInvStd(x, x - mean(x))``: the centring is ordinary differentiable chainlet
functions, and :class:`_MulInvStd` multiplies its second input by ``inv_std(x)`` while
differentiating that factor with respect to its first input. Its backward is written with
:class:`_MulInvStd` again, so group normalization can be differentiated to any order without
recomputing the statistics (Chainer's private node of the same name and contract).
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import _config
from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.cast import cast
from chainlet.functions.array.reshape import reshape
from chainlet.functions.math.sum import Mean
from chainlet.functions.normalization._standardize import moments
from chainlet.variable import Variable, as_array


class _MulInvStd(FunctionNode):
    """``z = inv_std[:, None] * y`` where ``inv_std`` is the inverse std of the rows of ``x``.

    The inputs are ``(x, y)``, both of shape ``(rows, m)``; ``mean`` and ``inv_std`` (shape
    ``(rows,)``) are the statistics of ``x``'s rows, computed by the caller (``inv_std =
    (var + eps) ** -0.5``). The gradient flows to ``y`` as a product and to ``x`` through
    ``inv_std``, whose derivative is ``-inv_std**2 * x_hat / m``.

    Args:
        eps: The ``eps`` that ``inv_std`` was computed with.
        mean: Row means of ``x``.
        inv_std: Inverse standard deviations of ``x``'s rows.
        dummy_gamma: Kept for Chainer's signature (its cuDNN path uses it); may be ``None``.
    """

    def __init__(self, eps: float, mean: Any, inv_std: Any,
                 dummy_gamma: Optional[Any] = None) -> None:
        self.eps = eps
        self.mean = mean
        self.inv_std = inv_std
        self.dummy_gamma = dummy_gamma

    def _check_arrays(self, in_data):
        type_check.count('_MulInvStd', in_data, 2)
        x, y = in_data
        type_check.argument('_MulInvStd', 'x', x, kind='f', ndim=2)
        type_check.argument('_MulInvStd', 'y', y, dtype=x.dtype, shape=x.shape)

    def forward(self, inputs):
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        _, y = inputs
        return (self.inv_std[:, None] * y).astype(y.dtype, copy=False),

    def _again(self, x: Variable, y: Any) -> Variable:
        return _MulInvStd(self.eps, self.mean, self.inv_std, self.dummy_gamma).apply((x, y))[0]

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        z, = self.get_retained_outputs()
        gz, = grad_outputs
        ret = []
        if 0 in indexes:
            # sum_i gz_i y_i d(inv_std)/dx_j = -inv_std * x_hat_j * mean(gz * z)
            x_hat = self._again(x, x - _row_mean(x))
            ret.append(-self._again(x, x_hat * _row_mean(gz * z)))
        if 1 in indexes:
            ret.append(self._again(x, gz))
        return tuple(ret)


def _row_mean(x: Variable) -> Variable:
    """Mean of each row of a 2-D Variable, keeping the axis (broadcasts against ``x``)."""
    # A Mean node, not sum * (1 / n): a float16 sum overflows past 65504 (Mean sums in float32).
    return Mean((1,), True, x.shape[1]).apply((x,))[0]


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
        gamma: Scale, shape ``(C,)``, a float dtype (that of ``x`` or, for mixed precision,
            another one; the output has the dtype of ``x``).
        beta: Shift, shape ``(C,)``, the dtype of ``gamma``.
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
        # gamma and beta may be of another float dtype than x (mixed16 links keep them in
        # float32), as in Chainer; they must agree with each other.
        ga = as_array(gamma)
        type_check.argument('group_normalization', 'gamma', ga, kind='f', shape=(xa.shape[1],))
        type_check.argument('group_normalization', 'beta', as_array(beta), dtype=ga.dtype,
                            shape=(xa.shape[1],))
    shape = xa.shape
    n, c = shape[:2]
    if c % groups:
        raise ValueError(f'group_normalization: argument groups: expected a divisor of the '
                         f'number of channels {c}, got {groups}')
    rest = 1
    for s in shape[2:]:
        rest *= s
    xr = reshape(x, (n * groups, (c // groups) * rest))
    mean, var = moments(xr.array, (1,))
    xp = backend.get_array_module(mean)
    inv_std = (1 / xp.sqrt(var[:, 0] + eps)).astype(xa.dtype, copy=False)
    mean = mean[:, 0].astype(xa.dtype, copy=False)
    x_hat = _MulInvStd(eps, mean, inv_std).apply((xr, xr - _row_mean(xr)))[0]
    x_hat = reshape(x_hat, shape)
    pshape = (1, c) + (1,) * (len(shape) - 2)
    if as_array(gamma).dtype != xa.dtype:  # the gradients return in gamma's and beta's dtype
        gamma, beta = cast(gamma, xa.dtype), cast(beta, xa.dtype)
    return x_hat * reshape(gamma, pshape) + reshape(beta, pshape)
