"""``separate``: split an array into its slices along an axis, dropping that axis."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array._util import check_array, normalize_axis
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.split_axis import split_axis
from chainlet.variable import Variable


def separate(x: Any, axis: int = 0) -> tuple[Variable, ...]:
    """Separate ``x`` into ``x.shape[axis]`` Variables, each without ``axis``.

    The inverse of :func:`stack`. Slices that receive no gradient contribute zeros.

    Args:
        x: Variable or array of ndim >= 1.
        axis: Axis to separate along.

    Returns:
        Tuple of ``x.shape[axis]`` Variables of shape ``x.shape`` without ``axis`` (an empty
        tuple when that length is 0).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> [y.array for y in F.separate(np.arange(4.0).reshape(2, 2), axis=1)]
        [array([0., 2.]), array([1., 3.])]
    """
    data = check_array('separate', 'x', x)
    axis = normalize_axis('separate', 'axis', axis, data.ndim)
    n = data.shape[axis]
    if n == 0:
        return ()
    shape = data.shape[:axis] + data.shape[axis + 1:]
    return tuple(reshape(y, shape) for y in split_axis(x, n, axis, force_tuple=True))
