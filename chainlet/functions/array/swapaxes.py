"""``swapaxes``: exchange two axes."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array._util import check_array, normalize_axis
from chainlet.functions.array.transpose import transpose
from chainlet.variable import Variable


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """Exchange the axes ``axis1`` and ``axis2`` of ``x`` (a transpose; the gradient swaps back).

    Args:
        x: Variable or array of ndim >= 1.
        axis1: First axis (negative values count from the end).
        axis2: Second axis.

    Returns:
        Variable whose shape is ``x.shape`` with entries ``axis1`` and ``axis2`` exchanged.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.swapaxes(np.zeros((2, 3, 4)), 0, -1).shape
        (4, 3, 2)
    """
    ndim = check_array('swapaxes', 'x', x).ndim
    a1 = normalize_axis('swapaxes', 'axis1', axis1, ndim)
    a2 = normalize_axis('swapaxes', 'axis2', axis2, ndim)
    axes = list(range(ndim))
    axes[a1], axes[a2] = a2, a1
    return transpose(x, axes)
