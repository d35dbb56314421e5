"""Elementwise ``maximum`` and ``minimum`` of two arrays (with broadcasting)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.sum_to import sum_to
from chainlet.functions.math._util import masked
from chainlet.variable import Variable


class _Extremum(FunctionNode):
    """Shared code: ``y = op(x1, x2)``; the gradient goes to the selected operand."""

    name = ''

    def _check_arrays(self, in_data):
        x1, x2 = in_data
        type_check.float_input(self.name, 'x1', x1)
        type_check.same_dtype(self.name, ('x1', 'x2'), in_data)
        if x1.shape != x2.shape:
            type_check.broadcastable(self.name, ('x1', 'x2'), in_data)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x1, x2 = inputs
        return self._select(backend.get_array_module(x1), x1, x2),

    def backward(self, indexes, grad_outputs):
        x1, x2 = self.get_retained_inputs()
        gy = grad_outputs[0]
        # Where x1 wins (ties included, as in Chainer) the gradient goes to x1, else to x2.
        cond = self._first_wins(x1.array, x2.array)
        ret = []
        for i in indexes:
            if i == 0:
                ret.append(sum_to(masked(gy, cond), x1.shape))
            else:
                ret.append(sum_to(masked(gy, ~cond), x2.shape))
        return tuple(ret)


class Maximum(_Extremum):
    """``y = maximum(x1, x2)``."""

    name = 'maximum'

    def _select(self, xp, x1, x2):
        return xp.maximum(x1, x2)

    def _first_wins(self, x1, x2):
        return x1 >= x2


class Minimum(_Extremum):
    """``y = minimum(x1, x2)``."""

    name = 'minimum'

    def _select(self, xp, x1, x2):
        return xp.minimum(x1, x2)

    def _first_wins(self, x1, x2):
        return x1 <= x2


def maximum(x1: Any, x2: Any) -> Variable:
    """Elementwise maximum of ``x1`` and ``x2``.

    Where the two are equal the gradient goes to ``x1`` (as in Chainer).

    Args:
        x1: Variable or array of floats.
        x2: Variable or array of the same dtype; broadcasts with ``x1``.

    Returns:
        Variable of the broadcast shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.maximum(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
        array([3., 5.])
    """
    return Maximum().apply((x1, x2))[0]


def minimum(x1: Any, x2: Any) -> Variable:
    """Elementwise minimum of ``x1`` and ``x2``.

    Where the two are equal the gradient goes to ``x1`` (as in Chainer).

    Args:
        x1: Variable or array of floats.
        x2: Variable or array of the same dtype; broadcasts with ``x1``.

    Returns:
        Variable of the broadcast shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.minimum(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
        array([1., 2.])
    """
    return Minimum().apply((x1, x2))[0]
