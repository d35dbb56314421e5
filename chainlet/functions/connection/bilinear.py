"""Bilinear function of two batches of vectors."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _size(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


class BilinearFunction(FunctionNode):
    """``y_il = sum_jk e1_ij e2_ik W_jkl (+ sum_j e1_ij V1_jl + sum_k e2_ik V2_kl + b_l)``.

    ``e1`` and ``e2`` of ndim > 2 are flattened to ``(N, J)`` and ``(N, K)``. Forward is one
    matrix product of the batch of outer products ``e1_i e2_i^T`` (``(N, J*K)``) with ``W``
    reshaped to ``(J*K, L)``. Backward is written with chainlet functions (products,
    broadcasting, sums), so it can be differentiated again.
    """

    def _check_arrays(self, in_data):
        f = 'bilinear'
        type_check.count(f, in_data, (3, 6))
        e1, e2, W = in_data[:3]
        type_check.argument(f, 'e1', e1, kind='f', min_ndim=2)
        type_check.argument(f, 'e2', e2, kind='f', min_ndim=2)
        type_check.argument(f, 'W', W, kind='f', ndim=3)
        names = ('e1', 'e2', 'W', 'V1', 'V2', 'b')
        type_check.same_dtype(f, names[:len(in_data)], in_data)
        if e1.shape[0] != e2.shape[0]:
            raise type_check.fail(f, 'e2', f'batch size {e1.shape[0]} (that of e1)',
                                  f'shape {e2.shape}')
        J, K, L = W.shape
        if _size(e1.shape[1:]) != J:
            raise type_check.fail(f, 'W', f'shape ({_size(e1.shape[1:])}, *, *) to match e1 of '
                                  f'shape {e1.shape}', str(W.shape))
        if _size(e2.shape[1:]) != K:
            raise type_check.fail(f, 'W', f'shape (*, {_size(e2.shape[1:])}, *) to match e2 of '
                                  f'shape {e2.shape}', str(W.shape))
        if len(in_data) == 6:
            V1, V2, b = in_data[3:]
            type_check.argument(f, 'V1', V1, shape=(J, L))
            type_check.argument(f, 'V2', V2, shape=(K, L))
            type_check.argument(f, 'b', b, shape=(L,))

    def forward(self, inputs):
        self.retain_inputs((0, 1, 2) if len(inputs) == 3 else (0, 1, 2, 3, 4))
        e1, e2, W = inputs[:3]
        xp = backend.get_array_module(e1)
        n = e1.shape[0]
        J, K, L = W.shape
        e1 = e1.reshape(n, J)
        e2 = e2.reshape(n, K)
        outer = (e1[:, :, None] * e2[:, None, :]).reshape(n, J * K)
        y = xp.matmul(outer, W.reshape(J * K, L))
        if len(inputs) == 6:
            V1, V2, b = inputs[3:]
            y += xp.matmul(e1, V1)
            y += xp.matmul(e2, V2)
            y += b
        return y,

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.reshape import reshape
        from chainlet.functions.math.matmul import matmul
        from chainlet.functions.math.sum import sum as _sum
        retained = self.get_retained_inputs()
        e1_in, e2_in, W = retained[:3]
        gy, = grad_outputs
        n = e1_in.shape[0]
        J, K, L = W.shape
        e1 = reshape(e1_in, (n, J))
        e2 = reshape(e2_in, (n, K))
        t = None
        if 0 in indexes or 1 in indexes:
            # t[i, j, k] = sum_l W_jkl gy_il, shared by both input gradients.
            t = reshape(matmul(gy, reshape(W, (J * K, L)), transb=True), (n, J, K))
        ret = []
        for i in indexes:
            if i in (0, 1):
                if i == 0:
                    ge = _sum(t * reshape(e2, (n, 1, K)), axis=2)
                    if len(retained) == 5:
                        ge = ge + matmul(gy, retained[3], transb=True)
                    ret.append(reshape(ge, e1_in.shape))
                else:
                    ge = _sum(t * reshape(e1, (n, J, 1)), axis=1)
                    if len(retained) == 5:
                        ge = ge + matmul(gy, retained[4], transb=True)
                    ret.append(reshape(ge, e2_in.shape))
            elif i == 2:
                outer = reshape(reshape(e1, (n, J, 1)) * reshape(e2, (n, 1, K)), (n, J * K))
                ret.append(reshape(matmul(outer, gy, transa=True), (J, K, L)))
            elif i == 3:
                ret.append(matmul(e1, gy, transa=True))
            elif i == 4:
                ret.append(matmul(e2, gy, transa=True))
            else:
                ret.append(_sum(gy, axis=0))
        return tuple(ret)


def bilinear(e1: Any, e2: Any, W: Any, V1: Optional[Any] = None, V2: Optional[Any] = None,
             b: Optional[Any] = None) -> Variable:
    """Bilinear function ``y_il = sum_jk e1_ij e2_ik W_jkl + sum_j e1_ij V1_jl
    + sum_k e2_ik V2_kl + b_l``.

    Args:
        e1: Variable or float array of shape ``(N, J)`` (or ``(N, ...)``, flattened to
            ``(N, J)``).
        e2: Variable or float array of shape ``(N, K)`` (or ``(N, ...)``).
        W: Coefficients of the bilinear term, shape ``(J, K, L)``.
        V1: Coefficients of the linear term in ``e1``, shape ``(J, L)``.
        V2: Coefficients of the linear term in ``e2``, shape ``(K, L)``.
        b: Bias of shape ``(L,)``. ``V1``, ``V2`` and ``b`` are given all together or not at
            all.

    Returns:
        Variable of shape ``(N, L)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> e1 = np.array([[1.0, 2.0]], np.float32)
        >>> e2 = np.array([[3.0]], np.float32)
        >>> W = np.ones((2, 1, 1), np.float32)
        >>> F.bilinear(e1, e2, W).array
        array([[9.]], dtype=float32)
    """
    given = [a is not None for a in (V1, V2, b)]
    if any(given) and not all(given):
        missing = ', '.join(n for n, g in zip(('V1', 'V2', 'b'), given) if not g)
        raise ValueError(f'bilinear: arguments V1, V2, b: expected all three or none, '
                         f'got {missing} missing')
    args = (e1, e2, W, V1, V2, b) if all(given) else (e1, e2, W)
    return BilinearFunction().apply(args)[0]


__all__ = ['BilinearFunction', 'bilinear']
