"""Cross-covariance loss between two batches of features (Cheung et al. 2015).

With batch-centered ``y_c`` and ``z_c``, ``C = y_c^T z_c / N``; the loss is ``C`` itself or
``0.5 * sum(C ** 2)``. Forward works on arrays and keeps the inputs; backward recomputes ``C``
with chainlet functions (``gy = z_c G^T / N``, ``gz = y_c G / N``; the centering drops out
because ``z_c`` and ``y_c`` have zero column sums), so the loss can be differentiated twice.
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._covariance import center, center_var, check_reduce
from chainlet.functions.math.matmul import matmul
from chainlet.variable import Variable


class CrossCovariance(FunctionNode):
    """``C = center(y)^T center(z) / N``, reduced to ``0.5 * sum(C ** 2)`` or kept."""

    def __init__(self, reduce: str = 'half_squared_sum') -> None:
        check_reduce('cross_covariance', reduce)
        self.reduce = reduce

    def _check_arrays(self, in_data):
        type_check.count('cross_covariance', in_data, 2)
        y, z = in_data
        type_check.argument('cross_covariance', 'y', y, kind='f', ndim=2)
        type_check.argument('cross_covariance', 'z', z, dtype=y.dtype, shape=(y.shape[0], None))

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        y, z = inputs
        xp = backend.get_array_module(y)
        C = center(xp, y).T.dot(center(xp, z)) / y.dtype.type(len(y))
        if self.reduce == 'no':
            return C,
        return xp.asarray(C.dtype.type(0.5) * xp.square(C).sum(), C.dtype),

    def backward(self, indexes, grad_outputs):
        y, z = self.get_retained_inputs()
        gloss, = grad_outputs
        n = float(len(y.array))
        yc, zc = center_var(y), center_var(z)
        if self.reduce == 'no':
            G = gloss
        else:
            G = gloss * (matmul(yc, zc, transa=True) / n)
        ret = {}
        if 0 in indexes:
            ret[0] = matmul(zc, G, transb=True) / n
        if 1 in indexes:
            ret[1] = matmul(yc, G) / n
        return tuple(ret[i] for i in indexes)


def cross_covariance(y: Any, z: Any, reduce: str = 'half_squared_sum') -> Variable:
    """Cross-covariance loss between two sets of features of the same batch.

    .. math::
        C_{ij} = \\frac{1}{N} \\sum_n (y_{ni} - \\bar y_i)(z_{nj} - \\bar z_j), \\qquad
        L = \\frac{1}{2} \\sum_{ij} C_{ij}^2 .

    Args:
        y: Float array of shape ``(N, M)``.
        z: Array of shape ``(N, K)``, ``y``'s dtype.
        reduce: ``'half_squared_sum'`` (the scalar ``L``) or ``'no'`` (the matrix ``C``).

    Returns:
        A 0-d Variable, or one of shape ``(M, K)`` when ``reduce='no'``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> y = np.array([[1.0], [-1.0]]); z = np.array([[2.0], [-2.0]])
        >>> F.cross_covariance(y, z, reduce='no').array
        array([[2.]])
        >>> F.cross_covariance(y, z).array
        array(2.)

    See: `Discovering Hidden Factors of Variation in Deep Networks
    <https://arxiv.org/abs/1412.6583>`_.
    """
    return CrossCovariance(reduce).apply((y, z))[0]
