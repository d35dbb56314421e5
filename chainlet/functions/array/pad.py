"""``pad``: pad an array with a constant or with values taken from the array itself."""
from __future__ import annotations

from typing import Any, cast

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array
from chainlet.variable import Variable

# Modes where every output element is a copy of one input element, so the gradient is a
# scatter-add through the same index map.
_INDEX_MODES = ('edge', 'reflect', 'symmetric', 'wrap')


def _pad_pairs(pad_width: Any, ndim: int) -> numpy.ndarray:
    """``pad_width`` in NumPy's forms (int, ``(b, a)``, per axis pairs) as an ``(ndim, 2)``
    array of non-negative ints."""
    try:
        pw = numpy.asarray(pad_width)
    except (TypeError, ValueError):
        pw = None
    if pw is None or (pw.size and pw.dtype.kind not in 'iu'):
        raise TypeError(f'pad: argument pad_width: expected an int or (nested) sequences of ints, '
                        f'got {pad_width!r}')
    try:
        pairs = numpy.broadcast_to(pw.astype(numpy.int64), (ndim, 2))
    except ValueError:
        raise ValueError(f'pad: argument pad_width: expected an int, a pair or {ndim} pairs '
                         f'(one per axis), got {pad_width!r}') from None
    if (pairs < 0).any():
        raise ValueError(f'pad: argument pad_width: expected non-negative widths, '
                         f'got {pad_width!r}')
    return pairs


class Pad(FunctionNode):
    """Constant padding; the gradient is the slice of ``gy`` that covers the input.

    ``mode``, ``pad_bw`` (the ``(ndim, 2)`` widths) and ``keywords`` are Chainer's names of the
    settings, read by graph exporters (onnx_chainer); the other modes are composed of
    ``reshape`` and ``get_item``.
    """

    mode = 'constant'

    def __init__(self, pairs: numpy.ndarray, constant_values: Any) -> None:
        self.pairs = pairs
        self.constant_values = constant_values

    @property
    def pad_bw(self) -> numpy.ndarray:
        return self.pairs

    @property
    def keywords(self) -> dict:
        return {'constant_values': self.constant_values}

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        self._slices = tuple(slice(int(b), int(b) + s) for (b, _), s in zip(self.pairs, x.shape))
        # numpy.pad rejects an empty list of pairs, which is what a 0-d array has.
        return xp.pad(x, self.pairs.tolist() if x.ndim else 0, mode='constant',
                      constant_values=self.constant_values),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.get_item import get_item
        return get_item(grad_outputs[0], self._slices),


def pad(x: Any, pad_width: Any, mode: str = 'constant', **keywords: Any) -> Variable:
    """Pad ``x`` like ``numpy.pad``.

    Args:
        x: Variable or array.
        pad_width: Widths ``(before, after)`` per axis, in any form ``numpy.pad`` accepts: an
            int, one pair for all axes, or one pair per axis.
        mode: ``'constant'`` (fill with ``constant_values``, default 0), or ``'edge'``,
            ``'reflect'``, ``'symmetric'``, ``'wrap'`` (copies of input elements). All five are
            differentiable; other ``numpy.pad`` modes are rejected.
        **keywords: ``constant_values`` for ``'constant'``; ``reflect_type='even'`` is accepted
            for ``'reflect'`` and ``'symmetric'``.

    Returns:
        Variable of shape ``x.shape[i] + before_i + after_i`` on each axis.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.pad(np.array([1.0, 2.0]), 1).array
        array([0., 1., 2., 0.])
        >>> F.pad(np.array([1.0, 2.0]), (0, 2), mode='wrap').array
        array([1., 2., 1., 2.])
    """
    data = check_array('pad', 'x', x)
    pairs = _pad_pairs(pad_width, data.ndim)
    if mode == 'constant':
        unknown = set(keywords) - {'constant_values'}
        if unknown:
            raise TypeError(f'pad: unexpected keyword argument(s) {sorted(unknown)} for mode '
                            f"'constant'")
        return Pad(pairs, keywords.get('constant_values', 0)).apply((x,))[0]
    if mode not in _INDEX_MODES:
        raise ValueError(f"pad: argument mode: expected one of 'constant', 'edge', 'reflect', "
                         f"'symmetric', 'wrap', got {mode!r}")
    allowed = {'reflect_type'} if mode in ('reflect', 'symmetric') else set()
    unknown = set(keywords) - allowed
    if unknown:
        raise TypeError(f'pad: unexpected keyword argument(s) {sorted(unknown)} for mode {mode!r}')
    if keywords.get('reflect_type', 'even') != 'even':
        raise ValueError(f"pad: argument reflect_type: only 'even' is supported, "
                         f"got {keywords['reflect_type']!r}")
    if data.size == 0 and pairs.any():
        raise ValueError(f'pad: argument x: mode {mode!r} cannot pad an empty array of shape '
                         f'{data.shape}')
    from chainlet.functions.array.get_item import get_item
    from chainlet.functions.array.reshape import reshape
    # The padded array of flat indices says which input element each output element copies.
    index = numpy.pad(numpy.arange(data.size).reshape(data.shape),
                      cast(Any, pairs.tolist() if data.ndim else 0), mode=cast(Any, mode))
    index = backend.get_array_module(data).asarray(index)
    return get_item(reshape(x, (data.size,)), index)
