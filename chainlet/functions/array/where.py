"""``where``: choose elements from two arrays by a boolean condition."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, data_of
from chainlet.variable import Variable

_SCALARS = (int, float, numpy.number)


class Where(FunctionNode):
    """``y = condition ? x : y`` with broadcasting.

    As in Chainer, the boolean array ``condition`` is a setting of the node, not an input: the
    inputs are ``x`` and ``y`` (graph exporters such as onnx_chainer read ``condition``).
    """

    def __init__(self, condition: Any) -> None:
        self.condition = condition

    def _check_arrays(self, in_data):
        x, y = in_data
        c = self.condition
        type_check.argument('where', 'condition', c, kind='b')
        type_check.same_dtype('where', ('x', 'y'), (x, y))
        type_check.broadcastable('where', ('condition', 'x', 'y'), (c, x, y))

    def forward(self, inputs):
        x, y = inputs
        self._shapes = (x.shape, y.shape)
        return backend.get_array_module(x, y).where(self.condition, x, y),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.sum_to import sum_to
        gy, = grad_outputs
        c = self.condition
        zero = backend.get_array_module(c).zeros((), gy.dtype)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(Where(c).apply((gy, zero))[0], self._shapes[0]))
            else:
                ret.append(sum_to(Where(c).apply((zero, gy))[0], self._shapes[1]))
        return tuple(ret)


def where(condition: Any, x: Any, y: Any) -> Variable:
    """Choose ``x`` where ``condition`` is true and ``y`` elsewhere, elementwise.

    Args:
        condition: Boolean Variable or array.
        x: Variable or array chosen where ``condition`` is true (a Python scalar is taken in the
            dtype of ``y``).
        y: Variable or array chosen elsewhere, of the dtype of ``x``.

    Returns:
        Variable of the broadcast shape of the three arguments. The gradient flows to ``x``
        where the condition holds and to ``y`` elsewhere; ``condition`` has none.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> c = np.array([True, False])
        >>> F.where(c, np.array([1.0, 2.0]), np.zeros(2)).array
        array([1., 0.])
    """
    condition = check_array('where', 'condition', condition)
    if isinstance(x, _SCALARS) and not isinstance(y, _SCALARS):
        x = backend.get_array_module(data_of(y)).asarray(x, dtype=data_of(y).dtype)
    elif isinstance(y, _SCALARS) and not isinstance(x, _SCALARS):
        y = backend.get_array_module(data_of(x)).asarray(y, dtype=data_of(x).dtype)
    check_array('where', 'x', x)
    check_array('where', 'y', y)
    return Where(condition).apply((x, y))[0]
