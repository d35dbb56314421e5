"""``clip``: limit values to an interval."""
from __future__ import annotations

import numbers
from typing import Any, Optional

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.math._util import masked
from chainlet.variable import Variable


def _bound(name: str, value: Any) -> Optional[float]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f'clip: argument {name}: expected a real number or None, '
                        f'got {type(value).__name__}')
    return float(value)


class Clip(FunctionNode):
    """``y = min(max(x, x_min), x_max)``; the gradient passes where ``x_min <= x <= x_max``."""

    def __init__(self, x_min: Optional[float], x_max: Optional[float]) -> None:
        self.x_min = _bound('x_min', x_min)
        self.x_max = _bound('x_max', x_max)
        if self.x_min is None and self.x_max is None:
            raise ValueError('clip: arguments x_min and x_max: expected at least one bound, '
                             'got None for both')
        if self.x_min is not None and self.x_max is not None and not self.x_min < self.x_max:
            raise ValueError(f'clip: arguments x_min and x_max: expected x_min < x_max, '
                             f'got x_min={x_min}, x_max={x_max}')

    def _check_arrays(self, in_data):
        type_check.float_input('clip', 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        xp = backend.get_array_module(x)
        # Bounds as 0-d arrays of x's dtype: the output keeps the dtype on NumPy 1.x and 2.x.
        y = x
        if self.x_min is not None:
            y = xp.maximum(y, xp.asarray(self.x_min, x.dtype))
        if self.x_max is not None:
            y = xp.minimum(y, xp.asarray(self.x_max, x.dtype))
        return y,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        xp = backend.get_array_module(x.array)
        x = x.array
        cond = xp.ones(x.shape, bool)
        if self.x_min is not None:
            cond &= x >= xp.asarray(self.x_min, x.dtype)
        if self.x_max is not None:
            cond &= x <= xp.asarray(self.x_max, x.dtype)
        return masked(grad_outputs[0], cond),


def clip(x: Any, x_min: Optional[float], x_max: Optional[float]) -> Variable:
    """Clip the elements of ``x`` to ``[x_min, x_max]``.

    The gradient is ``gy`` inside the closed interval (counting both edges, as Chainer does)
    and zero outside.

    Args:
        x: Variable or array of floats.
        x_min: Lower bound, or ``None`` for no lower bound.
        x_max: Upper bound, or ``None`` for no upper bound; ``x_min < x_max`` when both are
            given.

    Returns:
        Variable of the same shape and dtype.

    Raises:
        ValueError: Both bounds are ``None`` or ``x_min >= x_max``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.clip(np.array([-2.0, 0.5, 3.0], np.float32), -1.0, 1.0).array
        array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return Clip(x_min, x_max).apply((x,))[0]
