"""``hstack``: join arrays column wise."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.array._util import arrays_of, check_same_ndim
from chainlet.functions.array.concat import Concat
from chainlet.functions.array.reshape import reshape
from chainlet.variable import Variable


def hstack(xs: Sequence[Any]) -> Variable:
    """Concatenate horizontally: along axis 1, or along axis 0 for inputs of ndim <= 1.

    Args:
        xs: Non-empty list or tuple of Variables or arrays of one dtype and ndim. With ndim >= 2
            the shapes must agree except on axis 1; 0-d inputs count as shape ``(1,)``.

    Returns:
        Variable (like ``numpy.hstack``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.hstack([np.zeros(2), np.ones(1)]).array
        array([0., 0., 1.])
        >>> F.hstack([np.zeros((2, 1)), np.ones((2, 2))]).shape
        (2, 3)
    """
    data = arrays_of('hstack', xs)
    ndim = data[0].ndim
    check_same_ndim('hstack', data)
    if ndim == 0:
        xs = [reshape(x, (1,)) for x in xs]
    axis = 0 if ndim <= 1 else 1
    return Concat(axis, 'hstack').apply(tuple(xs))[0]
