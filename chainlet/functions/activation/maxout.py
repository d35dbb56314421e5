"""Maxout: maximum over groups of channels."""
from __future__ import annotations

import numbers
from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.reshape import reshape
from chainlet.variable import Variable


class MaxoutMax(FunctionNode):
    """``y = x.max(axis)``; the gradient goes to every element equal to the maximum."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return xp.asarray(x.max(axis=self.axis)),

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0].array
        y, = self.output_data()
        xp = backend.get_array_module(x)
        y = xp.expand_dims(y, self.axis)
        mask = (x == y).astype(x.dtype)
        gy = broadcast_to(reshape(grad_outputs[0], y.shape), x.shape)
        return gy * mask,


def maxout(x: Any, pool_size: int, axis: int = 1) -> Variable:
    """Maxout: split axis ``axis`` (size ``M * pool_size``) into ``(M, pool_size)`` and take
    the maximum over each group of ``pool_size`` consecutive entries.

    Args:
        x: Variable or array of floats with at least one axis.
        pool_size: Positive number of entries per group.
        axis: Axis to pool (negative values count from the end).

    Returns:
        Variable shaped like ``x`` except that axis ``axis`` has size ``M``.

    Raises:
        ValueError: ``pool_size`` is not positive or ``axis`` is out of range.
        chainlet.type_check.InvalidType: ``x.shape[axis]`` is not a multiple of
            ``pool_size``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[1.0, 5.0, 2.0, -1.0, 0.0, 3.0]], np.float32)
        >>> F.maxout(x, 3).array
        array([[5., 3.]], dtype=float32)
    """
    if isinstance(pool_size, bool) or not isinstance(pool_size, numbers.Integral):
        raise TypeError(f'maxout: argument pool_size: expected an int, '
                        f'got {type(pool_size).__name__}')
    if pool_size <= 0:
        raise ValueError(f'maxout: argument pool_size: expected a positive int, '
                         f'got {pool_size}')
    if isinstance(axis, bool) or not isinstance(axis, numbers.Integral):
        raise TypeError(f'maxout: argument axis: expected an int, got {type(axis).__name__}')
    data = x.array if isinstance(x, Variable) else x
    type_check.argument('maxout', 'x', data, kind='f', min_ndim=1)
    axis = type_check.axis_in_range('maxout', 'axis', int(axis), data.ndim)
    size = data.shape[axis]
    if size % pool_size:
        raise type_check.fail('maxout', 'x', f'shape[{axis}] divisible by pool_size '
                              f'{pool_size}', f'shape {data.shape}')
    shape = data.shape[:axis] + (size // pool_size, int(pool_size)) + data.shape[axis + 1:]
    return MaxoutMax(axis + 1).apply((reshape(x, shape),))[0]
