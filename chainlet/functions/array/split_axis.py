"""``split_axis``: cut an array into pieces along an axis."""
from __future__ import annotations

from typing import Any, Literal, Sequence, Union, overload

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, normalize_axis
from chainlet.variable import Variable


class SplitAxis(FunctionNode):
    """Split along ``axis`` at the sorted offsets ``indices``; the gradient is concatenated."""

    def __init__(self, indices: Sequence[int], axis: int) -> None:
        self.indices = list(indices)
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        ys = tuple(xp.split(x, self.indices, self.axis))
        self._shapes = [y.shape for y in ys]
        self._dtype = x.dtype
        return ys

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.concat import Concat
        xp = backend.get_array_module(*[g for g in grad_outputs if g is not None])
        # Outputs that received no gradient contribute zeros of their shape.
        gys = tuple(xp.zeros(shape, self._dtype) if gy is None else gy
                    for gy, shape in zip(grad_outputs, self._shapes))
        return Concat(self.axis, 'split_axis').apply(gys)


@overload
def split_axis(x: Any, indices_or_sections: Union[int, Sequence[int]], axis: int,
               force_tuple: Literal[True] = True) -> tuple: ...


@overload
def split_axis(x: Any, indices_or_sections: Union[int, Sequence[int]], axis: int,
               force_tuple: bool) -> Union[tuple, Variable]: ...


def split_axis(x: Any, indices_or_sections: Union[int, Sequence[int]], axis: int,
               force_tuple: bool = True) -> Union[tuple, Variable]:
    """Split ``x`` along ``axis`` into several Variables.

    Args:
        x: Variable or array of ndim >= 1.
        indices_or_sections: An int ``N`` splits into ``N`` equal pieces (``N`` must divide the
            length of the axis); a sorted sequence of ints gives the offsets where to cut
            (values past the end give empty pieces, negative values count from the end).
        axis: Axis to split.
        force_tuple: If ``False`` and there is only one piece, return it as a Variable.

    Returns:
        Tuple of Variables (or one Variable, see ``force_tuple``).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> a, b = F.split_axis(np.arange(6.0).reshape(2, 3), [1], axis=1)
        >>> a.shape, b.shape
        ((2, 1), (2, 2))
        >>> [y.array for y in F.split_axis(np.arange(4.0), 2, 0)]
        [array([0., 1.]), array([2., 3.])]
    """
    data = check_array('split_axis', 'x', x)
    axis = normalize_axis('split_axis', 'axis', axis, data.ndim)
    n = data.shape[axis]
    if isinstance(indices_or_sections, (bool, numpy.bool_)):
        raise TypeError('split_axis: argument indices_or_sections: expected an int or a '
                        'sequence of ints, got bool')
    if isinstance(indices_or_sections, (int, numpy.integer)):
        sections = int(indices_or_sections)
        if sections <= 0 or n % sections:
            raise ValueError(f'split_axis: argument indices_or_sections: expected a positive '
                             f'number of sections dividing the axis length {n}, got {sections}')
        step = n // sections
        indices = [step * i for i in range(1, sections)]
    else:
        ios = indices_or_sections
        try:
            arr = numpy.asarray(backend.to_cpu(ios) if backend.is_array(ios) else ios)
        except (TypeError, ValueError):
            arr = None
        if arr is None or arr.ndim != 1 or (arr.size and arr.dtype.kind not in 'iu'):
            raise TypeError(f'split_axis: argument indices_or_sections: expected an int or a '
                            f'1-D sequence of ints, got {ios!r}')
        raw = [int(i) for i in arr]
        indices = [min(max(i + n if i < 0 else i, 0), n) for i in raw]
        if any(a > b for a, b in zip(indices, indices[1:])):
            raise ValueError(f'split_axis: argument indices_or_sections: expected sorted '
                             f'offsets, got {list(raw)}')
    ys = SplitAxis(indices, axis).apply((x,))
    if force_tuple or len(ys) != 1:
        return ys
    return ys[0]
