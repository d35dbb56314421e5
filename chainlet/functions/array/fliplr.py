"""``fliplr``: reverse the columns."""
from __future__ import annotations

from typing import Any

from chainlet import type_check
from chainlet.functions.array._util import check_array
from chainlet.functions.array.get_item import get_item
from chainlet.variable import Variable


def fliplr(a: Any) -> Variable:
    """Reverse the order of elements along axis 1 (left and right).

    Args:
        a: Variable or array of ndim >= 2.

    Returns:
        Variable of the same shape.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.fliplr(np.array([[1.0, 2.0, 3.0]])).array
        array([[3., 2., 1.]])
    """
    type_check.argument('fliplr', 'a', check_array('fliplr', 'a', a), min_ndim=2)
    return get_item(a, (slice(None), slice(None, None, -1)))
