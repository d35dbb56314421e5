"""Binary classification accuracy (not differentiable)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class BinaryAccuracy(FunctionNode):
    """Fraction of elements where ``y >= 0`` agrees with ``t == 1``; ``t == -1`` is ignored."""

    def _check_arrays(self, in_data):
        y, t = in_data
        type_check.float_input('binary_accuracy', 'y', y)
        type_check.argument('binary_accuracy', 't', t, kind='i', shape=y.shape)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        valid = t != -1
        correct = ((y >= 0) == (t == 1)) & valid
        return xp.asarray(correct.sum() / xp.maximum(valid.sum(), 1), dtype=y.dtype),

    def backward(self, indexes, grad_outputs):
        return (None,) * len(indexes)


def binary_accuracy(y: Any, t: Any) -> Variable:
    """Accuracy of binary predictions: ``y[i] >= 0`` predicts 1, otherwise 0.

    Not differentiable: no gradient flows back from the result.

    Args:
        y: Float scores (logits), any shape.
        t: Signed integer labels of ``y``'s shape: 1, 0, or -1 to ignore the element. If
            every element is ignored the accuracy is 0.

    Returns:
        0-d Variable of ``y``'s dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> y = np.array([[-2.0, 0.0], [3.0, -5.0]])
        >>> F.binary_accuracy(y, np.array([[0, 1], [1, 0]], np.int32)).array
        array(1.)
        >>> F.binary_accuracy(y, np.array([[0, 0], [1, -1]], np.int32)).array
        array(0.66666667)
    """
    t = t.array if isinstance(t, Variable) else t
    return BinaryAccuracy().apply((y, t))[0]
