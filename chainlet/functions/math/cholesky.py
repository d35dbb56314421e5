"""``cholesky``: the lower-triangular Cholesky factor of a symmetric positive-definite matrix.

With ``A = L L^T``, the gradient (I. Murray, "Differentiation of the Cholesky decomposition",
2016) is ``gA = sym(L^-T Phi(L^T gL) L^-1) / 2`` where ``Phi`` keeps the lower triangle and
halves the diagonal and ``sym(S) = S + S^T``. It is written with chainlet functions on the
retained factor, so it can be differentiated again.
"""
from __future__ import annotations

import numpy

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Cholesky(FunctionNode):
    """``L = cholesky(A)`` for one ``(n, n)`` matrix."""

    @property
    def label(self) -> str:
        return 'cholesky'

    def _check_arrays(self, in_data):
        type_check.count('cholesky', in_data, 1)
        a, = in_data
        type_check.argument('cholesky', 'a', a, kind='f', ndim=2)
        if a.shape[0] != a.shape[1]:
            raise type_check.fail('cholesky', 'a', 'a square matrix', f'shape {a.shape}')
        if a.dtype.itemsize < 4:
            raise type_check.fail('cholesky', 'a', 'dtype float32 or float64', str(a.dtype))

    def forward(self, inputs):
        a, = inputs
        self.retain_outputs((0,))
        xp = backend.get_array_module(a)
        try:
            return xp.linalg.cholesky(a).astype(a.dtype, copy=False),
        except numpy.linalg.LinAlgError as e:  # a ValueError only since NumPy 1.25
            raise ValueError(f'cholesky: argument a: {e}') from e

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.transpose import transpose
        from chainlet.functions.math.inv import inv
        from chainlet.functions.math.matmul import matmul
        y, = self.get_retained_outputs()
        xp = y.xp
        n = y.shape[0]
        phi_mask = xp.tri(n, dtype=y.dtype) - 0.5 * xp.eye(n, dtype=y.dtype)
        phi = phi_mask * matmul(y, grad_outputs[0], transa=True)
        y_inv = inv(y)
        s = matmul(matmul(y_inv, phi, transa=True), y_inv)
        return 0.5 * (s + transpose(s)),


def cholesky(a: Any) -> Variable:
    """Cholesky factor ``L`` (lower triangular, ``A = L L^T``) of a symmetric positive-definite
    matrix.

    Only the lower triangle of ``a`` is read, as in ``numpy.linalg.cholesky``; the gradient
    is the symmetric one, so pass a symmetric ``a`` (e.g. ``(m + m.T) / 2``).

    Args:
        a: Variable or array of float32 or float64, shape ``(n, n)``.

    Returns:
        Variable of shape ``(n, n)`` and ``a``'s dtype.

    Raises:
        InvalidType: ``a`` is not a square float32/float64 matrix.
        ValueError: ``a`` is not positive definite (NumPy's ``LinAlgError``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.cholesky(np.array([[4.0, 2.0], [2.0, 2.0]])).array
        array([[2., 0.],
               [1., 1.]])
    """
    return Cholesky().apply((a,))[0]
