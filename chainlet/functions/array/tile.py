"""``tile``: repeat a whole array along each axis."""
from __future__ import annotations

from typing import Any, Sequence, Union

from chainlet.functions.array._util import check_array, check_int
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.reshape import Reshape, reshape
from chainlet.variable import Variable


def tile(x: Any, reps: Union[int, Sequence[int]]) -> Variable:
    """Construct an array by repeating ``x`` ``reps[i]`` times along axis ``i`` (``numpy.tile``).

    Written as reshape, broadcast and reshape, so the gradient sums the copies (and is itself
    differentiable).

    Args:
        x: Variable or array.
        reps: Non-negative int or sequence of ints; ``x`` or ``reps`` is padded with leading
            ones so that both have the same length.

    Returns:
        Variable of ndim ``max(x.ndim, len(reps))``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.tile(np.array([1.0, 2.0]), 2).array
        array([1., 2., 1., 2.])
        >>> F.tile(np.array([1.0, 2.0]), (2, 1)).shape
        (2, 2)
    """
    shape = check_array('tile', 'x', x).shape
    items = (reps,) if not isinstance(reps, (tuple, list)) else tuple(reps)
    items = tuple(check_int('tile', 'reps', r) for r in items)
    if any(r < 0 for r in items):
        raise ValueError(f'tile: argument reps: expected non-negative values, got {reps!r}')
    ndim = max(len(shape), len(items))
    shape = (1,) * (ndim - len(shape)) + tuple(shape)
    items = (1,) * (ndim - len(items)) + items
    if all(r == 1 for r in items):
        # A new node even when nothing changes, like every other call of tile.
        return Reshape(shape).apply((x,))[0]
    # (s0, s1, ...) -> (1, s0, 1, s1, ...) -> (r0, s0, r1, s1, ...) -> (r0 * s0, r1 * s1, ...)
    inter = tuple(v for s in shape for v in (1, s))
    target = tuple(v for r, s in zip(items, shape) for v in (r, s))
    y = broadcast_to(reshape(x, inter), target)
    return reshape(y, tuple(r * s for r, s in zip(items, shape)))
