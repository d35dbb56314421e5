"""``flatten``: all elements in one axis."""
from __future__ import annotations

from typing import Any

from chainlet.functions.array._util import check_array
from chainlet.functions.array.reshape import Reshape
from chainlet.variable import Variable


def flatten(x: Any) -> Variable:
    """Reshape ``x`` to one dimension, in C order (the gradient is reshaped back).

    Args:
        x: Variable or array of any shape.

    Returns:
        Variable of shape ``(x.size,)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.flatten(np.arange(6.0).reshape(2, 3)).array
        array([0., 1., 2., 3., 4., 5.])
    """
    return Reshape((check_array('flatten', 'x', x).size,)).apply((x,))[0]
