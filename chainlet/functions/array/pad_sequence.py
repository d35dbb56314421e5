"""``pad_sequence``: stack sequences of different lengths into one padded array.

The forward pass allocates the ``(n, length, ...)`` result once and copies each sequence into
its row; the padding value is cast to the dtype first, so that ``-1`` pads an unsigned array
with its maximum as a C cast would (NumPy warns when a Python int is assigned out of range).
The gradient of sequence ``i`` is the leading ``len(xs[i])`` steps of row ``i`` of ``gy``.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import arrays_of, check_int
from chainlet.variable import Variable


class PadSequence(FunctionNode):
    """Pad each input to ``length`` steps and stack them along a new first axis."""

    def __init__(self, length: Optional[int], padding: Union[int, float]) -> None:
        self.length = length
        self.padding = padding

    def _check_arrays(self, in_data):
        x0 = in_data[0]
        for i, x in enumerate(in_data):
            if x.ndim == 0:
                raise type_check.fail('pad_sequence', f'xs[{i}]', 'ndim >= 1', 'shape ()')
            if x.dtype != x0.dtype:
                raise type_check.fail('pad_sequence', f'xs[{i}]',
                                      f'dtype {x0.dtype} (the dtype of xs[0])', str(x.dtype))
            if x.shape[1:] != x0.shape[1:]:
                raise type_check.fail('pad_sequence', f'xs[{i}]',
                                      f'shape (*, {", ".join(map(str, x0.shape[1:]))}) '
                                      f'(the trailing shape of xs[0])', str(x.shape))
            if self.length is not None and x.shape[0] > self.length:
                raise type_check.fail('pad_sequence', f'xs[{i}]',
                                      f'at most length={self.length} steps', str(x.shape))

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        x0 = inputs[0]
        length = max(len(x) for x in inputs) if self.length is None else self.length
        self._lengths = tuple(len(x) for x in inputs)
        y = xp.empty((len(inputs), length) + x0.shape[1:], dtype=x0.dtype)
        if y.size == 0:
            return y,
        pad = numpy.array(self.padding).astype(x0.dtype)[()]  # a NumPy scalar: CuPy takes it
        for i, x in enumerate(inputs):
            n = len(x)
            y[i, :n] = x
            if n < length:
                y[i, n:] = pad
        return y,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return tuple(gy[i, :self._lengths[i]] for i in indexes)


def pad_sequence(xs: Sequence[Any], length: Optional[int] = None,
                 padding: Union[int, float] = 0) -> Variable:
    """Pad sequences of different lengths with ``padding`` and stack them.

    ``y[i, t] = xs[i][t]`` for ``t < len(xs[i])`` and ``y[i, t] = padding`` otherwise.

    Args:
        xs: Non-empty list or tuple of Variables or arrays of ndim >= 1 sharing the dtype and
            every axis but the first (the sequence axis).
        length: Length of the padded axis; ``None`` uses the longest sequence. No sequence
            may be longer.
        padding: Value of the padded steps, cast to the dtype of ``xs``.

    Returns:
        Variable of shape ``(len(xs), length) + xs[0].shape[1:]``.

    Shape:
        ``xs[i]``: ``(l_i, *s)``; output: ``(n, length, *s)``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.pad_sequence([np.array([1, 2, 3]), np.array([4])], padding=-1).array
        array([[ 1,  2,  3],
               [ 4, -1, -1]])
    """
    arrays_of('pad_sequence', xs)
    if length is not None:
        length = check_int('pad_sequence', 'length', length)
        if length < 0:
            raise ValueError(f'pad_sequence: argument length: expected a non-negative int or '
                             f'None, got {length}')
    return PadSequence(length, padding).apply(tuple(xs))[0]
