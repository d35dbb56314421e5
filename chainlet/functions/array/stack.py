"""``stack``: join arrays along a new axis."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import arrays_of, check_int
from chainlet.variable import Variable


class Stack(FunctionNode):
    """Stack inputs of one shape along a new ``axis``; the gradient is separated back."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def _check_arrays(self, in_data):
        x0 = in_data[0]
        for i, x in enumerate(in_data[1:], 1):
            if x.dtype != x0.dtype:
                raise type_check.fail('stack', f'xs[{i}]',
                                      f'dtype {x0.dtype} (the dtype of xs[0])', str(x.dtype))
            if x.shape != x0.shape:
                raise type_check.fail('stack', f'xs[{i}]',
                                      f'shape {x0.shape} (the shape of xs[0])', str(x.shape))

    def forward(self, inputs):
        return backend.get_array_module(*inputs).stack(inputs, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.separate import separate
        return separate(grad_outputs[0], self.axis)


def stack(xs: Sequence[Any], axis: int = 0) -> Variable:
    """Stack Variables or arrays of the same shape along a new axis.

    Args:
        xs: Non-empty list or tuple of Variables or arrays of one shape and dtype.
        axis: Position of the new axis in the result, in ``[-ndim - 1, ndim]``.

    Returns:
        Variable of ndim ``xs[0].ndim + 1`` whose length on ``axis`` is ``len(xs)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.stack([np.zeros(3), np.ones(3)], axis=1).shape
        (3, 2)
    """
    data = arrays_of('stack', xs)
    ndim = data[0].ndim
    axis = check_int('stack', 'axis', axis)
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f'stack: argument axis: expected an axis in [{-ndim - 1}, {ndim}] for '
                         f'inputs of ndim {ndim}, got {axis}')
    return Stack(axis % (ndim + 1)).apply(tuple(xs))[0]
