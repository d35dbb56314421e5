"""``expand_dims``: insert an axis of length one."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array._util import check_array, check_int
from chainlet.functions.array.reshape import Reshape
from chainlet.variable import Variable


def expand_dims(x: Any, axis: int) -> Variable:
    """Insert a new axis of length one at position ``axis`` (a reshape).

    Args:
        x: Variable or array of ndim ``N``.
        axis: Position of the new axis in the result, in ``[-N - 1, N]``.

    Returns:
        Variable of ndim ``N + 1``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.expand_dims(np.zeros((2, 3)), 1).shape
        (2, 1, 3)
        >>> F.expand_dims(np.zeros((2, 3)), -1).shape
        (2, 3, 1)
    """
    shape = list(check_array('expand_dims', 'x', x).shape)
    axis = check_int('expand_dims', 'axis', axis)
    ndim = len(shape)
    if not -ndim - 1 <= axis <= ndim:
        raise ValueError(f'expand_dims: argument axis: expected an axis in [{-ndim - 1}, {ndim}] '
                         f'for an array of ndim {ndim}, got {axis}')
    if axis < 0:
        axis += ndim + 1
    shape.insert(axis, 1)
    return Reshape(tuple(shape)).apply((x,))[0]
