"""``scatter_add``: add values into selected elements of a copy of an array."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_index
from chainlet.functions.array.get_item import _plain
from chainlet.variable import Variable


def _normalize_slices(slices: Any) -> tuple:
    slices = _plain(slices)
    if isinstance(slices, list):
        # A list of ints is one integer-array index; any other list is a tuple of indices.
        if all(isinstance(s, (int, numpy.integer)) and not isinstance(s, bool) for s in slices):
            return (slices,)
        return tuple(slices)
    return slices if isinstance(slices, tuple) else (slices,)


class ScatterAdd(FunctionNode):
    """``y = a.copy(); y[slices] += b`` with repeated indices accumulating.

    The gradient of ``a`` is ``gy``; that of ``b`` is ``gy[slices]``.
    """

    def __init__(self, slices: tuple) -> None:
        self.slices = slices

    def _check_arrays(self, in_data):
        a, b = in_data
        type_check.same_dtype('scatter_add', ('a', 'b'), (a, b))
        check_index('scatter_add', self.slices, a.ndim)

    def forward(self, inputs):
        a, b = inputs
        try:
            target = a[self.slices].shape
        except (IndexError, TypeError) as e:
            raise IndexError(f'scatter_add: argument slices: {e} (array shape {a.shape}, '
                             f'index {self.slices!r})') from None
        if target != b.shape:
            raise ValueError(f'scatter_add: argument b: expected shape {target} (the shape of '
                             f'a[slices]; no broadcasting), got {b.shape}')
        y = a.copy()
        if isinstance(y, numpy.ndarray):
            numpy.add.at(y, self.slices, b)
        else:
            import cupyx
            cupyx.scatter_add(y, self.slices, b)
        return y,

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.get_item import get_item
        gy, = grad_outputs
        return tuple(gy if i == 0 else get_item(gy, self.slices) for i in indexes)


def scatter_add(a: Any, slices: Any, b: Any) -> Variable:
    """Return a copy of ``a`` with ``b`` added at ``a[slices]``; ``a`` is not modified.

    Repeated integer indices accumulate (like ``numpy.add.at``).

    Args:
        a: Variable or array.
        slices: Any NumPy index: ints, slices, ``None``, ``...``, int or bool arrays, or a
            tuple of them. A list of ints is one integer-array index.
        b: Variable or array of the dtype of ``a`` and exactly the shape of ``a[slices]``.

    Returns:
        Variable of the shape and dtype of ``a``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.scatter_add(np.zeros(3), [0, 0, 2], np.ones(3)).array
        array([2., 0., 1.])
    """
    check_array('scatter_add', 'a', a)
    check_array('scatter_add', 'b', b)
    return ScatterAdd(_normalize_slices(slices)).apply((a, b))[0]
