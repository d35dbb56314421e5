"""``sum_to``: sum an array down to a shape it was broadcast from."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.utils import array as utils_array
from chainlet.variable import Variable


class SumTo(FunctionNode):
    """Sum over broadcast axes so that the output has ``shape``."""

    def __init__(self, shape: Sequence[int]) -> None:
        self._shape = tuple(shape)

    def _check_arrays(self, in_data):
        x = in_data[0]
        shape = self._shape
        lead = x.ndim - len(shape)
        if lead < 0 or any(s != 1 and s != a for s, a in zip(shape, x.shape[lead:])):
            raise ValueError(f'sum_to: argument shape: cannot sum an array of shape {x.shape} '
                             f'to shape {shape} (it must be broadcastable to {x.shape})')

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        return utils_array.sum_to(x, self._shape),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.broadcast import broadcast_to
        return broadcast_to(grad_outputs[0], self._in_shape),

    def _backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        if gy.shape == self._in_shape:
            return gy,
        return utils_array.broadcast_view(gy, self._in_shape),


def sum_to(x: Any, shape: Sequence[int]) -> Variable:
    """Sum the elements of ``x`` so that the result has ``shape`` (the inverse of broadcasting).

    Args:
        x: Variable or array.
        shape: Target shape; ``x.shape`` must be a broadcast of it.

    Returns:
        Variable of shape ``shape``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sum_to(np.ones((2, 3)), (1, 3)).array
        array([[2., 2., 2.]])
    """
    shape = tuple(shape)
    data = check_array('sum_to', 'x', x)
    if data.shape == shape:
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return SumTo(shape).apply((x,))[0]
