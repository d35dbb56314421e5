"""``batch_matmul``: Chainer's deprecated batched matrix product (use ``matmul``)."""
from __future__ import annotations

import warnings
from typing import Any

from chainlet import type_check
from chainlet.variable import Variable, as_variable


def batch_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """Matrix products of two batches of matrices, ``y[i] = a[i] @ b[i]``.

    Each operand of shape ``(B, N)`` is taken as ``B`` matrices of shape ``(N, 1)``; one of
    shape ``(B, M, N)`` as ``B`` matrices of shape ``(M, N)``. Like Chainer, this emits a
    ``DeprecationWarning``: :func:`~chainlet.functions.matmul` does the same with broadcasting.

    Args:
        a: Variable or array of floats, 2-D or 3-D.
        b: Variable or array of the same dtype, 2-D or 3-D, with the same batch size.
        transa: Transpose each matrix of ``a``.
        transb: Transpose each matrix of ``b``.

    Returns:
        3-D Variable of shape ``(B, M, K)``.

    Example:
        >>> import warnings
        >>> import numpy as np, chainlet.functions as F
        >>> a, b = np.ones((4, 2, 3)), np.ones((4, 3))
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter('ignore', DeprecationWarning)
        ...     y = F.batch_matmul(a, b)
        >>> y.shape
        (4, 2, 1)
    """
    warnings.warn('batch_matmul is deprecated; use matmul instead', DeprecationWarning,
                  stacklevel=2)
    from chainlet.functions.array.reshape import reshape
    from chainlet.functions.math.matmul import matmul
    a = as_variable(a)
    b = as_variable(b)
    type_check.argument('batch_matmul', 'a', a.array, kind='f')
    type_check.argument('batch_matmul', 'b', b.array, kind='f')
    for name, v in (('a', a), ('b', b)):
        if v.ndim not in (2, 3):
            raise type_check.fail('batch_matmul', name, 'ndim 2 or 3', f'shape {v.shape}')
    if a.shape[0] != b.shape[0]:
        raise type_check.InvalidType(
            'equal batch sizes', f'{a.shape} and {b.shape}',
            f'batch_matmul: arguments a and b: batch sizes differ: a has shape {a.shape}, '
            f'b has shape {b.shape}')
    a3 = reshape(a, a.shape[:2] + (-1,))
    b3 = reshape(b, b.shape[:2] + (-1,))
    ka = a3.shape[1 if transa else 2]
    kb = b3.shape[2 if transb else 1]
    if ka != kb:
        raise type_check.InvalidType(
            '', '',
            f'batch_matmul: arguments a and b: contracted dimensions differ: {ka} (a of shape '
            f'{a.shape}, transa={transa}) and {kb} (b of shape {b.shape}, transb={transb})')
    return matmul(a3, b3, transa, transb)
