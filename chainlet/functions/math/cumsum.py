"""``cumsum``: cumulative sum along an axis."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Cumsum(FunctionNode):
    """``y = cumsum(x, axis)`` (from the end of the axis when ``reverse``).

    The gradient of a cumulative sum is the cumulative sum of ``gy`` taken from the other
    end, so the backward is this node with ``reverse`` flipped.
    """

    def __init__(self, axis: Optional[int] = None, reverse: bool = False) -> None:
        if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
            raise TypeError(f'cumsum: argument axis: expected None or an int, got {axis!r}')
        self.axis = axis
        self.reverse = reverse

    def _check_arrays(self, in_data):
        x = in_data[0]
        type_check.float_input('cumsum', 'x', x)
        if self.axis is not None and not -x.ndim <= self.axis < x.ndim:
            # InvalidType (a TypeError) as in Chainer, where the axis is part of the type check.
            raise type_check.fail('cumsum', 'axis', f'an axis in [{-x.ndim}, {x.ndim})',
                                  str(self.axis))

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        xp = backend.get_array_module(x)
        if self.axis is None:
            x = x.reshape(-1)
        axis = 0 if self.axis is None else self.axis
        if not self.reverse:
            return xp.cumsum(x, axis=axis),
        flip = [slice(None)] * x.ndim
        flip[axis] = slice(None, None, -1)
        flip = tuple(flip)
        return xp.ascontiguousarray(xp.cumsum(x[flip], axis=axis)[flip]),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.reshape import reshape
        gx, = Cumsum(self.axis if self.axis is not None else 0,
                     not self.reverse).apply(grad_outputs)
        return reshape(gx, self._in_shape),


def cumsum(x: Any, axis: Optional[int] = None) -> Variable:
    """Cumulative sum of the elements along ``axis``.

    Args:
        x: Variable or array of floats.
        axis: Axis along which to sum; ``None`` flattens ``x`` first.

    Returns:
        Variable of the shape of ``x`` (1-D of size ``x.size`` when ``axis`` is ``None``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.cumsum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=1).array
        array([[1., 3.],
               [3., 7.]])
        >>> F.cumsum(np.array([[1.0, 2.0], [3.0, 4.0]])).array
        array([ 1.,  3.,  6., 10.])
    """
    return Cumsum(axis).apply((x,))[0]
