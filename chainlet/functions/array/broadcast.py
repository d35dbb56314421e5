"""``broadcast_to``: broadcast an array to a larger shape (a read-only view)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy

from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import InvalidValue, check_array
from chainlet.functions.array.broadcast_many import Broadcast, broadcast  # noqa: F401  (Chainer)
from chainlet.utils import array as utils_array
from chainlet.variable import Variable


class BroadcastTo(FunctionNode):
    """Broadcast the input to ``shape``; the gradient is summed back with ``sum_to``."""

    def __init__(self, shape: Sequence[int]) -> None:
        self._shape = tuple(shape)

    def _check_arrays(self, in_data):
        x = in_data[0]
        shape = self._shape
        lead = len(shape) - x.ndim
        ok = lead >= 0
        # Loops rather than any(...): the generators cost more than the tests (a summed
        # gradient is broadcast back by every sum's backward).
        for s in shape:
            if not isinstance(s, (int, numpy.integer)) or s < 0:
                ok = False
        if ok and lead < len(shape):
            for a, s in zip(x.shape, shape[lead:]):
                if a != 1 and a != s:
                    ok = False
        if not ok:
            raise InvalidValue(f'a shape that {x.shape} broadcasts to', str(shape),
                               f'broadcast_to: argument shape: cannot broadcast an array of '
                               f'shape {x.shape} to shape {shape}')

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        return utils_array.broadcast_view(x, self._shape),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.sum_to import sum_to
        return sum_to(grad_outputs[0], self._in_shape),

    def _backward_arrays(self, indexes, grad_outputs):
        return utils_array.sum_to(grad_outputs[0], self._in_shape),


def broadcast_to(x: Any, shape: Sequence[int]) -> Variable:
    """Broadcast ``x`` to ``shape`` following NumPy's rules.

    Args:
        x: Variable or array.
        shape: Target shape.

    Returns:
        Variable of shape ``shape`` (its array is a read-only view when possible).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.broadcast_to(np.array([1.0, 2.0]), (2, 2)).array
        array([[1., 2.],
               [1., 2.]])
    """
    shape = tuple(shape)
    data = x._data if type(x) is Variable else None
    if data is None:  # not a Variable, or one without an array
        data = check_array('broadcast_to', 'x', x)
    if data.shape == shape:
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return BroadcastTo(shape).apply((x,))[0]
