"""``flip``: reverse the order of elements along an axis."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array._util import check_array, normalize_axis
from chainlet.functions.array.get_item import get_item
from chainlet.variable import Variable


def _flip(array: Any, axis: int) -> Any:
    """``numpy.flip`` of a raw NumPy or CuPy array: a view reversed along ``axis``.

    Chainer's name for the array-level helper (Chainer's tests compare it with NumPy).
    """
    axis = normalize_axis('flip', 'axis', axis, array.ndim)
    return array[(slice(None),) * axis + (slice(None, None, -1),)]


def flip(x: Any, axis: int) -> Variable:
    """Reverse ``x`` along ``axis`` (a negative-step slice; the gradient is flipped back).

    Args:
        x: Variable or array of ndim >= 1.
        axis: Axis to reverse.

    Returns:
        Variable of the same shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.flip(np.array([[1.0, 2.0], [3.0, 4.0]]), 1).array
        array([[2., 1.],
               [4., 3.]])
    """
    ndim = check_array('flip', 'x', x).ndim
    axis = normalize_axis('flip', 'axis', axis, ndim)
    return get_item(x, (slice(None),) * axis + (slice(None, None, -1),))
