"""``reshape``: same elements, new shape."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable


class Reshape(FunctionNode):
    """Reshape to ``shape`` (one entry may be ``-1``)."""

    def __init__(self, shape: Sequence[int]) -> None:
        self._shape = tuple(shape)

    @property
    def shape(self) -> tuple:
        """The target shape, under Chainer's attribute name (graph exporters read it)."""
        return self._shape

    def _check_arrays(self, in_data):
        x = in_data[0]
        shape = self._shape
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if shape.count(-1) > 1 or (-1 not in shape and known != x.size) or \
                (-1 in shape and (known == 0 or x.size % known)):
            raise ValueError(f'reshape: argument shape: cannot reshape an array of shape '
                             f'{x.shape} (size {x.size}) to {shape}')

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        return x.reshape(self._shape),

    def backward(self, indexes, grad_outputs):
        return reshape(grad_outputs[0], self._in_shape),

    def _backward_arrays(self, indexes, grad_outputs):
        return grad_outputs[0].reshape(self._in_shape),


def reshape(x: Any, shape: Sequence[int]) -> Variable:
    """Give ``x`` a new shape without changing its elements.

    Args:
        x: Variable or array.
        shape: New shape; one dimension may be ``-1`` (inferred).

    Returns:
        Variable of the new shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.reshape(np.arange(6.0), (2, -1)).shape
        (2, 3)
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    data = check_array('reshape', 'x', x)
    if data.shape == shape:
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return Reshape(shape).apply((x,))[0]
