"""``flipud``: reverse the rows."""
from __future__ import annotations

from typing import Any

from chainlet import type_check
from chainlet.functions.array._util import check_array
from chainlet.functions.array.get_item import get_item
from chainlet.variable import Variable


def flipud(a: Any) -> Variable:
    """Reverse the order of elements along axis 0 (up and down).

    Args:
        a: Variable or array of ndim >= 1.

    Returns:
        Variable of the same shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.flipud(np.array([[1.0], [2.0]])).array
        array([[2.],
               [1.]])
    """
    type_check.argument('flipud', 'a', check_array('flipud', 'a', a), min_ndim=1)
    return get_item(a, slice(None, None, -1))
