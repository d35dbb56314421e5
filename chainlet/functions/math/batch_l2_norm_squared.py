"""``batch_l2_norm_squared``: the squared L2 norm of each example of a batch."""
from __future__ import annotations

import math
from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class BatchL2NormSquared(FunctionNode):
    """``y_n = sum_i x_{n,i}^2`` over all axes but the first; ``gx = 2 x gy_n``."""

    @property
    def label(self) -> str:
        return 'batch_l2_norm_squared'

    def _check_arrays(self, in_data):
        type_check.count('batch_l2_norm_squared', in_data, 1)
        type_check.argument('batch_l2_norm_squared', 'x', in_data[0], kind='f', min_ndim=2)

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        # float16 sums in float32: a half-precision running sum loses digits quickly.
        x2 = x.reshape(len(x), math.prod(x.shape[1:]))
        x2 = x2.astype(xp.promote_types(x.dtype, 'f'), copy=False)
        return xp.einsum('ij,ij->i', x2, x2).astype(x.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.broadcast import broadcast_to
        from chainlet.functions.array.reshape import reshape
        x, = self.get_retained_inputs()
        gy = reshape(grad_outputs[0], (len(x),) + (1,) * (x.ndim - 1))
        return 2 * x * broadcast_to(gy, x.shape),


def batch_l2_norm_squared(x: Any) -> Variable:
    """Squared L2 norm of each example: :math:`y_n = \\sum_i x_{n,i}^2`.

    Args:
        x: Variable or array of floats of shape ``(N, ...)`` with at least two axes.

    Returns:
        Variable of shape ``(N,)`` and ``x``'s dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.batch_l2_norm_squared(np.array([[3.0, 4.0], [1.0, 1.0]])).array
        array([25.,  2.])
    """
    return BatchL2NormSquared().apply((x,))[0]
