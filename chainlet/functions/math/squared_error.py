"""``squared_error``: elementwise squared error between two arrays of equal shape."""
from __future__ import annotations

from typing import Any

from chainlet.functions.math.squared_difference import SquaredDifference
from chainlet.variable import Variable


def squared_error(x0: Any, x1: Any) -> Variable:
    """Elementwise squared error :math:`y = (x_0 - x_1)^2`, not reduced.

    Unlike :func:`squared_difference` the shapes must be equal: a silent broadcast of, say,
    ``(N, 1)`` against ``(N,)`` would give an ``(N, N)`` error.

    Args:
        x0: Variable or array of floats.
        x1: Variable or array of the same shape and dtype.

    Returns:
        Variable of the same shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.squared_error(np.array([1.0, 5.0]), np.array([3.0, 2.0])).array
        array([4., 9.])
    """
    return SquaredDifference('squared_error', True, ('x0', 'x1')).apply((x0, x1))[0]
