"""``repeat``: repeat each element of an array."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_int, normalize_axis
from chainlet.variable import Variable


class Repeat(FunctionNode):
    """Repeat elements along ``axis``; the gradient sums the copies of each element."""

    def __init__(self, repeats: tuple, axis: int) -> None:
        self.repeats = repeats
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        self._in_shape = x.shape
        self._dtype = x.dtype
        xp = backend.get_array_module(x)
        reps = self.repeats[0] if len(self.repeats) == 1 else list(self.repeats)
        return xp.repeat(x, reps, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.get_item import GetItemGrad
        from chainlet.functions.array.reshape import reshape
        from chainlet.functions.math.sum import sum as sum_
        gy, = grad_outputs
        axis = self.axis
        shape = self._in_shape
        if len(set(self.repeats)) == 1:
            # Equal counts: the copies of element i are a contiguous block of length r.
            r = self.repeats[0]
            split = shape[:axis] + (shape[axis], r) + shape[axis + 1:]
            return sum_(reshape(gy, split), axis=axis + 1),
        index = numpy.repeat(numpy.arange(shape[axis]), self.repeats)
        index = backend.get_array_module(gy).asarray(index)
        slices = (slice(None),) * axis + (index,)
        return GetItemGrad(slices, shape, self._dtype).apply((gy,))


def _count(r: Any) -> int:
    # As in NumPy (and Chainer), a bool is a count: True repeats once, False drops the element.
    if isinstance(r, (bool, numpy.bool_)):
        return int(r)
    return check_int('repeat', 'repeats', r)


def repeat(x: Any, repeats: Union[int, Sequence[int]], axis: Optional[int] = None) -> Variable:
    """Repeat each element of ``x`` ``repeats`` times (``numpy.repeat``).

    Args:
        x: Variable or array.
        repeats: Non-negative int, or one non-negative int per element along ``axis`` (bools
            count as 0 and 1, as in NumPy).
        axis: Axis along which to repeat; ``None`` works on the flattened array.

    Returns:
        Variable (1-D when ``axis`` is ``None``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.repeat(np.array([1.0, 2.0]), 2).array
        array([1., 1., 2., 2.])
        >>> F.repeat(np.array([[1.0, 2.0]]), [1, 3], axis=1).array
        array([[1., 2., 2., 2.]])
    """
    data = check_array('repeat', 'x', x)
    if isinstance(repeats, (tuple, list)) or backend.is_array(repeats):
        flat = numpy.asarray(backend.to_cpu(repeats) if backend.is_array(repeats) else repeats)
        reps = tuple(_count(r) for r in flat.ravel().tolist())
    else:
        reps = (_count(repeats),)
    if any(r < 0 for r in reps):
        raise ValueError(f'repeat: argument repeats: expected non-negative values, '
                         f'got {repeats!r}')
    if axis is None:
        from chainlet.functions.array.reshape import reshape
        x = reshape(x, (data.size,))
        shape = (data.size,)
        axis = 0
    else:
        shape = data.shape
        axis = normalize_axis('repeat', 'axis', axis, data.ndim)
    n = shape[axis]
    if len(reps) not in (1, n):
        raise ValueError(f'repeat: argument repeats: expected one value or {n} values (one per '
                         f'element along the axis), got {len(reps)}')
    if len(reps) == n and n > 0 and len(set(reps)) == 1:
        reps = reps[:1]
    if len(reps) == 0:
        reps = (0,)
    return Repeat(reps, axis).apply((x,))[0]
