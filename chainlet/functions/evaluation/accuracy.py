"""Classification accuracy (not differentiable)."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def check_scores_and_labels(func: str, y: Any, t: Any) -> None:
    """``y``: float scores ``(N, C, d1, ...)``; ``t``: int labels ``(N, d1, ...)``.

    As in Chainer, ``y`` may have extra trailing axes of size 1.
    """
    type_check.argument(func, 'y', y, kind='f')
    type_check.argument(func, 't', t, kind='i')
    type_check.argument(func, 'y', y, min_ndim=t.ndim + 1)
    want = y.shape[:1] + y.shape[2:t.ndim + 1]
    if t.shape != want or any(s != 1 for s in y.shape[t.ndim + 1:]):
        raise type_check.fail(func, 't', f'shape {want} (y.shape without axis 1)', str(t.shape))


class Accuracy(FunctionNode):
    """Fraction of instances whose argmax over axis 1 of ``y`` equals ``t``. No gradient."""

    def __init__(self, ignore_label: Optional[int]) -> None:
        self.ignore_label = ignore_label

    def _check_arrays(self, in_data):
        check_scores_and_labels('accuracy', *in_data)

    def forward(self, inputs):
        y, t = inputs
        xp = backend.get_array_module(y)
        pred = y.argmax(axis=1).reshape(t.shape)
        if self.ignore_label is None:
            if t.size == 0:
                return xp.zeros((), y.dtype),
            return xp.asarray((pred == t).mean(), dtype=y.dtype),
        valid = t != self.ignore_label
        total = valid.sum()
        correct = ((pred == t) & valid).sum()
        return xp.asarray(correct / xp.maximum(total, 1), dtype=y.dtype),

    def backward(self, indexes, grad_outputs):
        return (None,) * len(indexes)


def accuracy(y: Any, t: Any, ignore_label: Optional[int] = None) -> Variable:
    """Fraction of correct predictions, the prediction being ``argmax`` of ``y`` over axis 1.

    Not differentiable: no gradient flows back from the result.

    Args:
        y: Float scores of shape ``(N, C)`` or ``(N, C, d1, ...)``.
        t: Integer labels of shape ``(N,)`` or ``(N, d1, ...)``.
        ignore_label: Instances with this label are left out of both counts. If every
            instance is ignored the accuracy is 0.

    Returns:
        0-d Variable of ``y``'s dtype.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> y = np.array([[0.1, 0.7, 0.2], [8.0, 1.0, 2.0], [-8.0, 1.0, 2.0]], np.float32)
        >>> F.accuracy(y, np.array([1, 0, 0], np.int32)).array
        array(0.6666667, dtype=float32)
        >>> F.accuracy(y, np.array([1, 0, -1], np.int32), ignore_label=-1).array
        array(1., dtype=float32)
    """
    t = t.array if isinstance(t, Variable) else t
    return Accuracy(ignore_label).apply((y, t))[0]
