"""``get_item``: NumPy indexing (basic and advanced) as a differentiable function."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_index
from chainlet.variable import Variable


def _plain(slices: Any) -> Any:
    """Replace Variables inside an index by their arrays."""
    if isinstance(slices, Variable):
        return slices.array
    if isinstance(slices, tuple):
        return tuple(_plain(s) for s in slices)
    if isinstance(slices, list):
        return [_plain(s) for s in slices]
    return slices


def _is_basic(slices: Any) -> bool:
    items = slices if isinstance(slices, tuple) else (slices,)
    return all(s is None or s is Ellipsis or isinstance(s, (slice, int, numpy.integer))
               and not isinstance(s, bool) for s in items)


def _as_tuple(slices: Any) -> tuple:
    """The index as a tuple of per-axis indices, by Chainer's rule for lists: a list of ints
    is one integer array index, and any other list is a tuple (``x[[[0, 1], [1, 2]]]`` is
    ``x[[0, 1], [1, 2]]``, as NumPy read it before 1.23)."""
    if isinstance(slices, tuple):
        return slices
    if isinstance(slices, list) and not all(isinstance(s, int) for s in slices):
        return tuple(slices)
    return slices,


class GetItem(FunctionNode):
    """``y = x[slices]``; the gradient scatters back, adding at repeated indices.

    ``slices`` is kept as a tuple of per-axis indices, as in Chainer (graph exporters such as
    onnx_chainer read it).
    """

    def __init__(self, slices: Any) -> None:
        self.slices = _as_tuple(_plain(slices))

    def _check_arrays(self, in_data):
        check_index('get_item', self.slices, in_data[0].ndim)

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        try:
            return x[self.slices],
        except (IndexError, TypeError) as e:
            raise IndexError(f'get_item: argument slices: {e} (array shape {x.shape}, '
                             f'index {self.slices!r})') from None

    def backward(self, indexes, grad_outputs):
        return GetItemGrad(self.slices, self._in_shape, self._in_dtype).apply(grad_outputs)


class GetItemGrad(FunctionNode):
    """Scatter ``gy`` into zeros of the input's shape; its own gradient is ``get_item``."""

    def __init__(self, slices: Any, shape: tuple, dtype: Any) -> None:
        self.slices = slices
        self._shape = shape
        self._dtype = dtype

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self._shape, self._dtype)
        if _is_basic(self.slices):
            gx[self.slices] = gy
        elif xp is numpy:
            numpy.add.at(gx, self.slices, gy)
        else:
            import cupyx
            cupyx.scatter_add(gx, self.slices, gy)
        return gx,

    def backward(self, indexes, grad_outputs):
        return GetItem(self.slices).apply(grad_outputs)


def get_item(x: Any, slices: Any) -> Variable:
    """Index ``x`` like a NumPy array: ints, slices, ``None``, ``...``, int and bool arrays.

    Args:
        x: Variable or array.
        slices: Any NumPy index. With repeated advanced indices, gradients accumulate.

    Returns:
        Variable holding ``x[slices]``.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.array([1.0, 2.0, 3.0]))
        >>> y = x[[0, 0, 2]].sum()
        >>> y.backward()
        >>> x.grad
        array([2., 0., 1.])
    """
    return GetItem(slices).apply((x,))[0]
