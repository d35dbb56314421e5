"""``dstack``: join arrays depth wise (along the third axis)."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.array._util import arrays_of, check_same_ndim
from chainlet.functions.array.concat import Concat, check_joinable
from chainlet.functions.array.reshape import reshape
from chainlet.variable import Variable


def dstack(xs: Sequence[Any]) -> Variable:
    """Concatenate along axis 2, after turning shapes ``()``, ``(N,)`` and ``(M, N)`` into
    ``(1, 1, 1)``, ``(1, N, 1)`` and ``(M, N, 1)`` (like ``numpy.dstack``).

    Args:
        xs: Non-empty list or tuple of Variables or arrays of one dtype and ndim. Inputs of
            ndim <= 2 must have the same shape; with ndim >= 3 the shapes must agree except on
            axis 2.

    Returns:
        Variable of ndim >= 3.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.dstack([np.zeros((2, 3)), np.ones((2, 3))]).shape
        (2, 3, 2)
        >>> F.dstack([np.zeros(3), np.ones(3)]).shape
        (1, 3, 2)
    """
    data = arrays_of('dstack', xs)
    ndim = data[0].ndim
    check_same_ndim('dstack', data)
    if ndim <= 2:
        check_joinable('dstack', data, None)
        shape = {0: (1, 1, 1), 1: (1,) + data[0].shape + (1,), 2: data[0].shape + (1,)}[ndim]
        xs = [reshape(x, shape) for x in xs]
    return Concat(2, 'dstack').apply(tuple(xs))[0]
