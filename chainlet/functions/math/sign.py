"""``sign``: elementwise sign (not differentiable)."""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet import type_check
from chainlet.variable import Variable, as_variable


def _array(func: str, x: Any) -> Any:
    data = x.array if isinstance(x, Variable) else x
    if not backend.is_array(data):
        raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
    return data


def sign(x: Any) -> Variable:
    """Elementwise sign: ``-1`` for negative, ``0`` for zero, ``1`` for positive elements.

    Not differentiable: as in Chainer the result is a new Variable outside the graph (its
    gradient is ``None`` and nothing flows back to ``x``).

    Args:
        x: Variable or array.

    Returns:
        Variable of the same shape and dtype, with ``requires_grad=False``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sign(np.array([-2.0, 0.0, 3.5], np.float32)).array
        array([-1.,  0.,  1.], dtype=float32)
    """
    data = _array('sign', x)
    xp = backend.get_array_module(data)
    return as_variable(xp.asarray(xp.sign(data)))
