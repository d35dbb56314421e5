"""Mixed precision for float16: compute a forward in float32, return float16.

Many reductions and special functions lose too much accuracy, or overflow, in float16.
Decorating ``forward`` with :func:`_fp16_mixed_precision_helper` casts float16 inputs to float32
before the call and, when no input was float32 or float64, casts float32 outputs back to float16.
Non-float inputs (labels, indices) and ``None`` outputs pass through untouched.

Example:
    >>> import numpy as np
    >>> class Node:
    ...     @_fp16_mixed_precision_helper
    ...     def forward(self, inputs):
    ...         self.seen = inputs[0].dtype.name
    ...         return inputs[0] * 2,
    >>> node = Node()
    >>> y, = node.forward((np.ones(2, np.float16),))
    >>> node.seen, y.dtype.name
    ('float32', 'float16')
"""
from __future__ import annotations

import functools
from typing import Any, Callable

import numpy


def _fp16_mixed_precision_helper(fn: Callable) -> Callable:
    """Decorate ``forward(self, inputs)`` to compute in float32 when the floats are float16.

    Args:
        fn: A ``forward`` method taking a tuple of arrays and returning a tuple of arrays.

    Returns:
        The wrapped method. Inputs that are float16 reach ``fn`` as float32; when every float
        input was float16, float32 outputs are cast back to float16. Inputs of other dtypes are
        passed as they are (the same objects).
    """
    @functools.wraps(fn)
    def wrapper(self: Any, in_data: tuple) -> tuple:
        all_half = all(x.dtype.kind != 'f' or x.dtype == numpy.float16 for x in in_data)
        in_data = tuple(x.astype(numpy.float32) if x.dtype == numpy.float16 else x
                        for x in in_data)
        out_data = fn(self, in_data)
        if not all_half:
            return out_data
        return tuple(y.astype(numpy.float16)
                     if y is not None and y.dtype == numpy.float32 else y
                     for y in out_data)
    return wrapper
