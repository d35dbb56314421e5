"""``transpose``: permute axes."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class Transpose(FunctionNode):
    """Permute the axes of the input (reverse them when ``axes`` is ``None``)."""

    def __init__(self, axes: Optional[Sequence[int]] = None) -> None:
        self.axes = None if axes is None else tuple(axes)

    def _check_arrays(self, in_data):
        ndim = in_data[0].ndim
        axes = self.axes
        # Non-integer entries (a str, floats) would fail inside the modulo with NumPy's words.
        if axes is not None and (not all(isinstance(a, (int, numpy.integer)) and
                                         not isinstance(a, bool) for a in axes) or
                                 sorted(a % max(ndim, 1) for a in axes) != list(range(ndim))):
            raise ValueError(f'transpose: argument axes: expected a permutation of '
                             f'{tuple(range(ndim))}, got {self.axes}')

    def forward(self, inputs):
        x, = inputs
        self._ndim = x.ndim
        return x.transpose(self.axes),

    def backward(self, indexes, grad_outputs):
        if self.axes is None:
            inv = None
        else:
            inv = tuple(numpy.argsort([a % self._ndim for a in self.axes]).tolist())
        return Transpose(inv).apply(grad_outputs)


def transpose(x: Any, axes: Optional[Sequence[int]] = None) -> Variable:
    """Permute the dimensions of ``x``.

    Args:
        x: Variable or array.
        axes: Permutation of ``range(x.ndim)``; ``None`` reverses the axes.

    Returns:
        Variable with permuted axes.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.transpose(np.zeros((2, 3, 4)), (2, 0, 1)).shape
        (4, 2, 3)
    """
    return Transpose(axes).apply((x,))[0]
