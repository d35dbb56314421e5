"""``vstack``: join arrays row wise."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.array._util import arrays_of, check_same_ndim
from chainlet.functions.array.concat import Concat, check_joinable
from chainlet.functions.array.reshape import reshape
from chainlet.variable import Variable


def vstack(xs: Sequence[Any]) -> Variable:
    """Concatenate vertically: along axis 0, treating inputs of ndim <= 1 as single rows.

    Args:
        xs: Non-empty list or tuple of Variables or arrays of one dtype and ndim. Inputs of
            ndim <= 1 must have the same shape (each becomes a row ``(1, N)``); with ndim >= 2
            the shapes must agree except on axis 0.

    Returns:
        Variable (like ``numpy.vstack``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.vstack([np.zeros(2), np.ones(2)]).array
        array([[0., 0.],
               [1., 1.]])
    """
    data = arrays_of('vstack', xs)
    ndim = data[0].ndim
    check_same_ndim('vstack', data)
    if ndim <= 1:
        check_joinable('vstack', data, None)
        xs = [reshape(x, (1, d.size)) for x, d in zip(xs, data)]
    return Concat(0, 'vstack').apply(tuple(xs))[0]
