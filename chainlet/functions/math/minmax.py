"""Reductions that select: ``max``, ``min`` (differentiable), ``argmax``, ``argmin`` (not)."""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math._util import expand_to_input, kept_shape, masked, reduced_size
from chainlet.functions.math.sum import Axis, normalize_axis
from chainlet.variable import Variable


def _check_axis_kind(func: str, axis: Any, allow_tuple: bool) -> None:
    ok = axis is None or (isinstance(axis, int) and not isinstance(axis, bool))
    if allow_tuple and isinstance(axis, tuple):
        ok = all(isinstance(a, int) and not isinstance(a, bool) for a in axis)
    if not ok:
        want = 'None, an int or a tuple of ints' if allow_tuple else 'None or an int'
        raise TypeError(f'{func}: argument axis: expected {want}, got {axis!r}')


def _check_not_empty(func: str, x: Any, axes: Optional[tuple]) -> None:
    if reduced_size(x.shape, axes) == 0:
        raise ValueError(f'{func}: argument x: expected a non-empty reduction, got shape '
                         f'{x.shape} reduced over axis {axes}')


class _Select(FunctionNode):
    """``y = op(x, axis, keepdims)``; ``gy`` flows to every element equal to its result."""

    name = ''

    def __init__(self, axis: Axis = None, keepdims: bool = False) -> None:
        _check_axis_kind(self.name, axis, True)
        self.axis = axis
        self.keepdims = keepdims

    def _check_arrays(self, in_data):
        x = in_data[0]
        type_check.float_input(self.name, 'x', x)

    def forward(self, inputs):
        x, = inputs
        self.axis = normalize_axis(self.name, self.axis, x.ndim)
        _check_not_empty(self.name, x, self.axis)
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return self._reduce(backend.get_array_module(x), x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        x = x.array
        # Ties all receive the full gradient, as in Chainer.
        cond = x == y.array.reshape(kept_shape(x.shape, self.axis))
        gy = expand_to_input(grad_outputs[0], x.shape, self.axis)
        return masked(gy, cond),


class Max(_Select):
    """``y = max(x, axis)``."""

    name = 'max'

    def _reduce(self, xp, x):
        return xp.amax(x, axis=self.axis, keepdims=self.keepdims)


class Min(_Select):
    """``y = min(x, axis)``."""

    name = 'min'

    def _reduce(self, xp, x):
        return xp.amin(x, axis=self.axis, keepdims=self.keepdims)


class _ArgSelect(FunctionNode):
    """Index of the selected element along ``axis`` as int32; no gradient."""

    name = ''

    def __init__(self, axis: Optional[int] = None) -> None:
        _check_axis_kind(self.name, axis, False)
        self.axis = axis

    def _check_arrays(self, in_data):
        x = in_data[0]
        type_check.float_input(self.name, 'x', x)

    def forward(self, inputs):
        x, = inputs
        axes = normalize_axis(self.name, self.axis, x.ndim)
        _check_not_empty(self.name, x, axes)
        xp = backend.get_array_module(x)
        return self._arg(xp, x).astype(numpy.int32),

    def backward(self, indexes, grad_outputs):
        return None,


class ArgMax(_ArgSelect):
    """``argmax(x, axis)``."""

    name = 'argmax'

    def _arg(self, xp, x):
        return xp.argmax(x, axis=self.axis)


class ArgMin(_ArgSelect):
    """``argmin(x, axis)``."""

    name = 'argmin'

    def _arg(self, xp, x):
        return xp.argmin(x, axis=self.axis)


def max(x: Any, axis: Axis = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Maximum of the elements over ``axis``.

    The gradient goes to the elements equal to the maximum; when several are equal, each of
    them receives the full output gradient (as in Chainer).

    Args:
        x: Variable or array of floats.
        axis: Axis or tuple of axes to reduce; ``None`` reduces all.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable with the reduced shape.

    Raises:
        ValueError: The reduction is over zero elements.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.max(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=1).array
        array([4., 3.])
    """
    return Max(axis, keepdims).apply((x,))[0]


def min(x: Any, axis: Axis = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Minimum of the elements over ``axis``.

    The gradient goes to the elements equal to the minimum; when several are equal, each of
    them receives the full output gradient (as in Chainer).

    Args:
        x: Variable or array of floats.
        axis: Axis or tuple of axes to reduce; ``None`` reduces all.
        keepdims: Keep the reduced axes with length one.

    Returns:
        Variable with the reduced shape.

    Raises:
        ValueError: The reduction is over zero elements.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.min(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=0).array
        array([1., 2.])
    """
    return Min(axis, keepdims).apply((x,))[0]


def argmax(x: Any, axis: Optional[int] = None) -> Variable:
    """Index of the maximum along ``axis`` (of the flattened array when ``axis`` is ``None``).

    Not differentiable: the output is an int32 Variable and no gradient flows back.

    Args:
        x: Variable or array of floats.
        axis: Axis to search, or ``None``.

    Returns:
        int32 Variable with ``axis`` removed (0-d when ``axis`` is ``None``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.argmax(np.array([[1.0, 4.0], [3.0, 2.0]]), axis=1).array
        array([1, 0], dtype=int32)
    """
    return ArgMax(axis).apply((x,))[0]


def argmin(x: Any, axis: Optional[int] = None) -> Variable:
    """Index of the minimum along ``axis`` (of the flattened array when ``axis`` is ``None``).

    Not differentiable: the output is an int32 Variable and no gradient flows back.

    Args:
        x: Variable or array of floats.
        axis: Axis to search, or ``None``.

    Returns:
        int32 Variable with ``axis`` removed (0-d when ``axis`` is ``None``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.argmin(np.array([[1.0, 4.0], [3.0, 2.0]])).array
        array(0, dtype=int32)
    """
    return ArgMin(axis).apply((x,))[0]
