"""``moveaxis``: move axes to new positions, keeping the order of the others."""
from __future__ import annotations

from typing import Any, Sequence, Union

from chainlet.functions.array._util import check_array, normalize_axes
from chainlet.functions.array.transpose import transpose
from chainlet.variable import Variable


def moveaxis(x: Any, source: Union[int, Sequence[int]],
             destination: Union[int, Sequence[int]]) -> Variable:
    """Move the axes ``source`` of ``x`` to the positions ``destination`` (like NumPy).

    The other axes keep their relative order. This is a transpose, so the gradient is moved
    back by the inverse permutation.

    Args:
        x: Variable or array.
        source: Axis or sequence of distinct axes to move.
        destination: Target position(s), as many as in ``source``.

    Returns:
        Variable with the permuted axes.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
        (3, 4, 2)
        >>> F.moveaxis(np.zeros((2, 3, 4)), (0, 1), (2, 0)).shape
        (3, 4, 2)
    """
    ndim = check_array('moveaxis', 'x', x).ndim
    src = normalize_axes('moveaxis', 'source', source, ndim)
    dst = normalize_axes('moveaxis', 'destination', destination, ndim)
    if len(src) != len(dst):
        raise ValueError(f'moveaxis: arguments source and destination: expected the same number '
                         f'of axes, got {len(src)} and {len(dst)}')
    order = [a for a in range(ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, order)
