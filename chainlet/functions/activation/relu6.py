"""ReLU clipped at 6."""
from __future__ import annotations

from typing import Any

from chainlet.functions.activation.clipped_relu import ClippedReLU
from chainlet.variable import Variable


def relu6(x: Any) -> Variable:
    """ReLU6, :math:`y = \\min(\\max(x, 0), 6)`: :func:`clipped_relu` with ``z = 6``.

    Args:
        x: Variable or array of floats, any shape.

    Returns:
        Variable of the same shape and dtype, values in ``[0, 6]``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.relu6(np.array([-2.0, 4.0, 10.0], np.float32)).array
        array([0., 4., 6.], dtype=float32)
    """
    return ClippedReLU(6.0, 'relu6').apply((x,))[0]
