"""DeCov loss (Cogswell et al. 2016): penalize the covariance between hidden units.

With the batch-centered ``h_c``, ``C = h_c^T h_c / N`` with its diagonal set to zero; the loss is
``0.5 * sum(C ** 2)`` or ``C``. Backward is ``gh = h_c (G + G^T) / N`` with ``G`` the gradient of
``C``, written with chainlet functions so that it can be differentiated again.
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.loss._covariance import center, center_var, check_reduce
from chainlet.functions.math.matmul import matmul
from chainlet.variable import Variable


def _off_diagonal(xp: Any, m: int, dtype: Any) -> Any:
    return 1 - xp.eye(m, dtype=dtype)


class DeCov(FunctionNode):
    """``C = offdiag(center(h)^T center(h) / N)``, reduced to ``0.5 * sum(C ** 2)`` or kept."""

    def __init__(self, reduce: str = 'half_squared_sum') -> None:
        check_reduce('decov', reduce)
        self.reduce = reduce

    def _check_arrays(self, in_data):
        type_check.count('decov', in_data, 1)
        type_check.argument('decov', 'h', in_data[0], kind='f', ndim=2)

    def forward(self, inputs):
        self.retain_inputs((0,))
        h, = inputs
        xp = backend.get_array_module(h)
        hc = center(xp, h)
        C = hc.T.dot(hc) / h.dtype.type(len(h))
        C *= _off_diagonal(xp, h.shape[1], h.dtype)
        if self.reduce == 'no':
            return C,
        return xp.asarray(C.dtype.type(0.5) * xp.square(C).sum(), C.dtype),

    def backward(self, indexes, grad_outputs):
        h, = self.get_retained_inputs()
        gloss, = grad_outputs
        xp = backend.get_array_module(h.array)
        n = float(len(h.array))
        off = _off_diagonal(xp, h.shape[1], h.dtype)
        hc = center_var(h)
        if self.reduce == 'no':
            G = gloss * off
        else:
            G = gloss * (matmul(hc, hc, transa=True) * (off / h.dtype.type(n)))
        return matmul(hc, G + G.T) / n,


def decov(h: Any, reduce: str = 'half_squared_sum') -> Variable:
    """DeCov loss: the off-diagonal covariance of hidden activations over the batch.

    .. math::
        C_{ij} = \\frac{1}{N} \\sum_n (h_{ni} - \\bar h_i)(h_{nj} - \\bar h_j)\\ (i \\ne j),
        \\qquad L = \\frac{1}{2} \\sum_{i \\ne j} C_{ij}^2 .

    Args:
        h: Float array of shape ``(N, M)``: a batch of hidden activations.
        reduce: ``'half_squared_sum'`` (the scalar ``L``) or ``'no'`` (the ``(M, M)`` matrix
            ``C`` with a zero diagonal).

    Returns:
        A 0-d Variable, or one of shape ``(M, M)`` when ``reduce='no'``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> h = np.array([[1.0, 2.0], [-1.0, -2.0]])
        >>> F.decov(h, reduce='no').array
        array([[0., 2.],
               [2., 0.]])
        >>> F.decov(h).array
        array(4.)

    See: `Reducing Overfitting in Deep Neural Networks by Decorrelating Representations
    <https://arxiv.org/abs/1511.06068>`_.
    """
    return DeCov(reduce).apply((h,))[0]
