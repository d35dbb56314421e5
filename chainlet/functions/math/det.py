"""``det`` and ``batch_det``: the determinant of a square matrix and of a batch of them.

The forward calls ``xp.linalg.det`` (float16 computed in float32). With ``y = det(X)`` the
gradient is ``gX = gy y X^-T`` (Jacobi's formula), written with chainlet functions on the
retained input and output, so it is differentiable again; a singular matrix has no inverse
and its gradient raises ``ValueError``.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class BatchDet(FunctionNode):
    """``y_i = det(X_i)`` for a batch ``X`` of shape ``(m, n, n)``."""

    @property
    def label(self) -> str:
        return 'det'

    def _check_arrays(self, in_data):
        type_check.count('batch_det', in_data, 1)
        a, = in_data
        type_check.argument('batch_det', 'a', a, kind='f', ndim=3)
        if a.shape[-1] != a.shape[-2]:
            raise type_check.fail('batch_det', 'a', 'square matrices', f'shape {a.shape}')

    def forward(self, inputs):
        a, = inputs
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        xp = backend.get_array_module(a)
        work = a.astype(numpy.promote_types(a.dtype, numpy.float32), copy=False)
        return xp.asarray(xp.linalg.det(work)).astype(a.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.reshape import reshape
        from chainlet.functions.array.broadcast import broadcast_to
        from chainlet.functions.array.transpose import transpose
        from chainlet.functions.math.inv import batch_inv
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        scale = reshape(grad_outputs[0] * y, (len(x), 1, 1))
        return broadcast_to(scale, x.shape) * batch_inv(transpose(x, (0, 2, 1))),


def batch_det(a: Any) -> Variable:
    """Determinant of each square matrix of a batch.

    Args:
        a: Variable or array of floats of shape ``(m, n, n)``.

    Returns:
        Variable of shape ``(m,)`` and ``a``'s dtype.

    Raises:
        InvalidType: ``a`` is not a batch of square float matrices.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.batch_det(np.array([[[2.0, 0.0], [0.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])).array
        array([ 6., -2.])
    """
    return BatchDet().apply((a,))[0]


def det(a: Any) -> Variable:
    """Determinant of a square matrix.

    Args:
        a: Variable or array of floats of shape ``(n, n)``.

    Returns:
        0-d Variable of ``a``'s dtype.

    Raises:
        InvalidType: ``a`` is not a square float matrix.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.det(np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array(-2.)
    """
    from chainlet.functions.array.reshape import reshape
    data = a.array if isinstance(a, Variable) else a
    if not backend.is_array(data):
        raise type_check.fail('det', 'a', 'a Variable or an ndarray', type(a).__name__)
    type_check.argument('det', 'a', data, kind='f', ndim=2)
    if data.shape[0] != data.shape[1]:
        raise type_check.fail('det', 'a', 'a square matrix', f'shape {data.shape}')
    return reshape(batch_det(reshape(a, (1,) + data.shape)), ())
