"""``rollaxis``: move one axis so that it lies before position ``start``."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array._util import (check_array, check_int, invalid_value,
                                            normalize_axis)
from chainlet.functions.array.transpose import transpose
from chainlet.variable import Variable


def rollaxis(x: Any, axis: int, start: int = 0) -> Variable:
    """Roll ``axis`` backwards until it lies before position ``start`` (``numpy.rollaxis``).

    Args:
        x: Variable or array.
        axis: Axis to move, in ``[-ndim, ndim)``.
        start: The axis is placed before the axis that was at ``start``; in ``[-ndim, ndim]``.

    Returns:
        Variable with the permuted axes (a transpose; the gradient is permuted back).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.rollaxis(np.zeros((2, 3, 4)), 2).shape
        (4, 2, 3)
        >>> F.rollaxis(np.zeros((2, 3, 4)), 0, 3).shape
        (3, 4, 2)
    """
    ndim = check_array('rollaxis', 'x', x).ndim
    axis = normalize_axis('rollaxis', 'axis', axis, ndim)
    start = check_int('rollaxis', 'start', start)
    if not -ndim <= start <= ndim:
        raise invalid_value('rollaxis', 'start', f'a value in [{-ndim}, {ndim}]', str(start))
    if start < 0:
        start += ndim
    if axis < start:
        start -= 1
    order = [a for a in range(ndim) if a != axis]
    order.insert(start, axis)
    return transpose(x, order)
