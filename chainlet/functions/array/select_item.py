"""``select_item``: pick one element per row."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet._config import config
from chainlet.functions.array._util import check_array
from chainlet.functions.array.get_item import get_item
from chainlet.variable import Variable


def select_item(x: Any, t: Any) -> Variable:
    """Select ``y[i] = x[i, t[i]]`` for every row ``i``.

    Implemented as advanced indexing, so the gradient scatters ``gy[i]`` to ``x[i, t[i]]``.

    Args:
        x: Variable or array of shape ``(B, N)``.
        t: Integer Variable or array of shape ``(B,)`` with values in ``[-N, N)`` (negative
            values count from the end; in debug mode they are rejected, as in Chainer, whose
            GPU kernel does not wrap them).

    Returns:
        Variable of shape ``(B,)`` and the dtype of ``x``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        >>> F.select_item(x, np.array([2, 0])).array
        array([2., 3.])
    """
    xd = check_array('select_item', 'x', x)
    td = check_array('select_item', 't', t)
    type_check.argument('select_item', 'x', xd, ndim=2)
    type_check.argument('select_item', 't', td, kind='iu', shape=(xd.shape[0],))
    xp = backend.get_array_module(xd)
    n = xd.shape[1]
    low = 0 if config.debug else -n
    if (xp is numpy or config.debug) and td.size and (td.min() < low or td.max() >= n):
        bad = td[(td < low) | (td >= n)][0]
        raise ValueError(f'select_item: argument t: expected values in [{low}, {n}), got {bad}')
    return get_item(x, (xp.arange(xd.shape[0]), td))
