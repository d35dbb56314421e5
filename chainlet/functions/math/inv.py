"""``inv`` and ``batch_inv``: the inverse of a square matrix and of a batch of them.

The forward calls ``xp.linalg.inv`` (float16 is inverted in float32 and rounded back); a
singular matrix raises ``ValueError`` (NumPy's ``LinAlgError``). CuPy does not check, so on the
GPU the check (a non-finite inverse) runs in debug mode only, as in Chainer, to spare the
device synchronisation. With ``Y = X^-1`` the gradient
is ``gX = -Y^T gY Y^T``, written with :func:`~chainlet.functions.matmul` on the retained output,
so it is differentiable again.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def inv_array(a: Any) -> Any:
    """Inverse of the last two axes of ``a`` in ``a``'s dtype (float16 computed in float32)."""
    from chainlet._config import config
    xp = backend.get_array_module(a)
    work = a.astype(numpy.promote_types(a.dtype, numpy.float32), copy=False)
    try:
        y = xp.linalg.inv(work)
    except numpy.linalg.LinAlgError as e:  # a ValueError only since NumPy 1.25
        raise ValueError(f'inv: argument a: {e}') from e
    if xp is not numpy and config.debug and not bool(xp.isfinite(y).all()):
        raise ValueError('inv: argument a: input has singular matrices')
    return y.astype(a.dtype, copy=False)


class Inv(FunctionNode):
    """``Y = X^-1`` of one square matrix (``batch=False``) or of each of a batch."""

    def __init__(self, batch: bool = False) -> None:
        self.batch = batch

    @property
    def label(self) -> str:
        return 'batch_inv' if self.batch else 'inv'

    def _check_arrays(self, in_data):
        name = self.label
        type_check.count(name, in_data, 1)
        a, = in_data
        type_check.argument(name, 'a', a, kind='f', ndim=3 if self.batch else 2)
        if a.shape[-1] != a.shape[-2]:
            raise type_check.fail(name, 'a', 'square matrices', f'shape {a.shape}')

    def forward(self, inputs):
        self.retain_outputs((0,))
        return inv_array(inputs[0]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.math.matmul import matmul
        y, = self.get_retained_outputs()
        return matmul(matmul(-y, grad_outputs[0], transa=True), y, transb=True),


class BatchInv(Inv):
    """The node of :func:`batch_inv` under Chainer's name: :class:`Inv` on a batch of matrices."""

    def __init__(self) -> None:
        super().__init__(batch=True)


def inv(a: Any) -> Variable:
    """Inverse of a square matrix.

    Args:
        a: Variable or array of floats of shape ``(n, n)``.

    Returns:
        Variable of shape ``(n, n)`` and ``a``'s dtype.

    Raises:
        InvalidType: ``a`` is not a square float matrix.
        ValueError: ``a`` is singular.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.inv(np.array([[2.0, 0.0], [0.0, 4.0]])).array
        array([[0.5 , 0.  ],
               [0.  , 0.25]])
    """
    return Inv().apply((a,))[0]


def batch_inv(a: Any) -> Variable:
    """Inverse of each square matrix of a batch.

    Args:
        a: Variable or array of floats of shape ``(m, n, n)``.

    Returns:
        Variable of shape ``(m, n, n)`` and ``a``'s dtype.

    Raises:
        InvalidType: ``a`` is not a batch of square float matrices.
        ValueError: one of the matrices is singular.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.batch_inv(np.array([[[2.0]], [[4.0]]])).array
        array([[[0.5 ]],
        <BLANKLINE>
               [[0.25]]])
    """
    return Inv(batch=True).apply((a,))[0]
