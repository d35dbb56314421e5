"""``concat``: join arrays along an existing axis."""
from __future__ import annotations

from typing import Any, Optional, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import arrays_of, normalize_axis
from chainlet.variable import Variable


def check_joinable(func: str, xs: Sequence[Any], axis: Optional[int]) -> None:
    """Check that ``xs`` share dtype and ndim and agree on every axis but ``axis``.

    With ``axis=None`` the shapes must be equal.
    """
    x0 = xs[0]
    for i, x in enumerate(xs[1:], 1):
        if x.dtype != x0.dtype:
            raise type_check.fail(func, f'xs[{i}]', f'dtype {x0.dtype} (the dtype of xs[0])',
                                  str(x.dtype))
        if axis is None:
            if x.shape != x0.shape:
                raise type_check.fail(func, f'xs[{i}]', f'shape {x0.shape} (the shape of xs[0])',
                                      str(x.shape))
        elif x.ndim != x0.ndim or any(a != b for d, (a, b) in
                                      enumerate(zip(x.shape, x0.shape)) if d != axis):
            want = ', '.join('*' if d == axis else str(s) for d, s in enumerate(x0.shape))
            want = f'({want},)' if x0.ndim == 1 else f'({want})'
            raise type_check.fail(func, f'xs[{i}]', f'shape {want} (as xs[0] except on '
                                  f'axis {axis})', str(x.shape))


class Concat(FunctionNode):
    """Concatenate the inputs along ``axis``; the gradient is split back at the same offsets."""

    def __init__(self, axis: int, func: str = 'concat') -> None:
        self.axis = axis
        self._func = func

    def _check_arrays(self, in_data):
        check_joinable(self._func, in_data, self.axis)

    def forward(self, inputs):
        self._sizes = [x.shape[self.axis] for x in inputs]
        xp = backend.get_array_module(*inputs)
        return xp.concatenate(inputs, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.split_axis import split_axis
        offsets = []
        total = 0
        for s in self._sizes[:-1]:
            total += s
            offsets.append(total)
        return split_axis(grad_outputs[0], offsets, self.axis, force_tuple=True)


def concat(xs: Sequence[Any], axis: int = 1) -> Variable:
    """Concatenate Variables or arrays along ``axis``.

    Args:
        xs: Non-empty list or tuple of Variables or arrays with the same dtype and ndim (>= 1),
            whose shapes agree except on ``axis``.
        axis: Axis to join along.

    Returns:
        Variable whose length on ``axis`` is the sum of the inputs' lengths.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.concat([np.zeros((2, 1)), np.ones((2, 2))]).array
        array([[0., 1., 1.],
               [0., 1., 1.]])
    """
    data = arrays_of('concat', xs)
    if data[0].ndim == 0:
        raise type_check.fail('concat', 'xs[0]', 'ndim >= 1', 'shape ()')
    axis = normalize_axis('concat', 'axis', axis, data[0].ndim)
    return Concat(axis).apply(tuple(xs))[0]
