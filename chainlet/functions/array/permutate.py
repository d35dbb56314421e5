"""``permutate``: reorder the slices of an array along an axis by a permutation."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_int
from chainlet.variable import Variable


def _inverse(indices: Any) -> Any:
    xp = backend.get_array_module(indices)
    inv = xp.empty_like(indices)
    inv[indices] = xp.arange(len(indices), dtype=indices.dtype)
    return inv


class Permutate(FunctionNode):
    """``y = x.take(indices, axis)`` (or the inverse permutation).

    As in Chainer, ``indices`` (an int array) is a setting of the node, not an input: the node
    has one input, ``x``, and graph exporters (onnx_chainer) read ``indices``, ``axis`` and
    ``inv``. The gradient applies the inverse permutation.
    """

    def __init__(self, indices: Any, axis: int = 0, inv: bool = False) -> None:
        self.indices = indices
        self.axis = axis
        self.inv = inv

    def _check_arrays(self, in_data):
        x, = in_data
        indices = self.indices
        if not -x.ndim <= self.axis < x.ndim:
            raise ValueError(f'permutate: argument axis: expected an axis in [{-x.ndim}, '
                             f'{x.ndim}) for x of shape {x.shape}, got {self.axis}')
        n = x.shape[self.axis]
        type_check.argument('permutate', 'indices', indices, kind='iu', shape=(n,))
        xp = backend.get_array_module(indices)
        if n and not bool((xp.sort(indices) == xp.arange(n)).all()):
            raise ValueError(f'permutate: argument indices: expected a permutation of '
                             f'0..{n - 1}, got {backend.to_cpu(indices).tolist()}')

    def forward(self, inputs):
        x, = inputs
        indices = self.indices
        order = _inverse(indices) if self.inv else indices
        return backend.get_array_module(x).take(x, order, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        return Permutate(self.indices, self.axis, not self.inv).apply(grad_outputs)


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> Variable:
    """Permute ``x`` along ``axis``: ``y[i] = x[indices[i]]`` (``y[indices[i]] = x[i]`` when
    ``inv``).

    Args:
        x: Variable or array.
        indices: 1-D int Variable or array, a permutation of ``range(x.shape[axis])``.
        axis: Axis to permute.
        inv: Apply the inverse permutation.

    Returns:
        Variable of the shape of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([10.0, 20.0, 30.0])
        >>> F.permutate(x, np.array([2, 0, 1])).array
        array([30., 10., 20.])
        >>> F.permutate(x, np.array([2, 0, 1]), inv=True).array
        array([20., 30., 10.])
    """
    check_array('permutate', 'x', x)
    indices = check_array('permutate', 'indices', indices)
    axis = check_int('permutate', 'axis', axis)
    return Permutate(indices, axis, bool(inv)).apply((x,))[0]
