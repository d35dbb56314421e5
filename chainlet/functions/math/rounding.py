"""Rounding to integral values: ``floor``, ``ceil`` and ``fix`` (not differentiable)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet.functions.math.sign import _array
from chainlet.variable import Variable, as_variable


def _round(func: str, x: Any, xp_name: str = '') -> Variable:
    data = _array(func, x)
    xp = backend.get_array_module(data)
    y = getattr(xp, xp_name or func)(data)
    return as_variable(xp.asarray(y).astype(data.dtype, copy=False))


def floor(x: Any) -> Variable:
    """Elementwise floor, the largest integral value not greater than each element.

    Not differentiable: as in Chainer the result is a new Variable outside the graph.

    Args:
        x: Variable or array.

    Returns:
        Variable of the same shape and dtype, with ``requires_grad=False``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.floor(np.array([-1.5, 0.2, 2.7])).array
        array([-2.,  0.,  2.])
    """
    return _round('floor', x)


def ceil(x: Any) -> Variable:
    """Elementwise ceiling, the smallest integral value not less than each element.

    Not differentiable: as in Chainer the result is a new Variable outside the graph.

    Args:
        x: Variable or array.

    Returns:
        Variable of the same shape and dtype, with ``requires_grad=False``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.ceil(np.array([-1.5, 0.2, 2.7])).array
        array([-1.,  1.,  3.])
    """
    return _round('ceil', x)


def fix(x: Any) -> Variable:
    """Elementwise rounding towards zero.

    Not differentiable: as in Chainer the result is a new Variable outside the graph.

    Args:
        x: Variable or array.

    Returns:
        Variable of the same shape and dtype, with ``requires_grad=False``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.fix(np.array([-1.5, 0.2, 2.7])).array
        array([-1.,  0.,  2.])
    """
    return _round('fix', x, 'trunc')  # the same rounding; numpy.fix is deprecated in NumPy 2.5
