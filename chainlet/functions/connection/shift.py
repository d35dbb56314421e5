"""``shift``: the zero-FLOP, zero-parameter spatial "convolution" of Wu et al. (2017).

The channels are cut into ``kh * kw`` equal groups, one per tap of a ``kh x kw`` window; each
group is translated by its tap's offset times ``dilate`` and the vacated pixels become zero.
The centre tap (no translation) is moved to the last group, which also takes the channels left
over when ``c`` is not a multiple of ``kh * kw``. Translating by the opposite offsets is the
adjoint, so the gradient is ``shift`` with ``-dilate``: backward is itself a shift and double
backprop comes for free. The forward pass is one sliced copy per group (the same code on NumPy
and CuPy).
"""
from __future__ import annotations

import numbers
from typing import Any, Sequence, Union

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

IntOrPair = Union[int, Sequence[int]]


def _group_offsets(kh: int, kw: int) -> list:
    """Tap offset ``(oy, ox)`` of each channel group, the centre tap last."""
    n = kh * kw
    order = list(range(n))
    centre = (n - 1) // 2
    order[centre], order[n - 1] = order[n - 1], order[centre]
    return [(g // kw - kh // 2, g % kw - kw // 2) for g in order]


def _translate(dst: Any, src: Any, sy: int, sx: int) -> None:
    """``dst[..., i, j] = src[..., i - sy, j - sx]`` where that pixel exists (else untouched)."""
    h, w = src.shape[-2:]
    if abs(sy) >= h or abs(sx) >= w:
        return
    dst[..., max(sy, 0):h + min(sy, 0), max(sx, 0):w + min(sx, 0)] = \
        src[..., max(-sy, 0):h + min(-sy, 0), max(-sx, 0):w + min(-sx, 0)]


def _pair(func: str, name: str, value: Any) -> tuple:
    pair = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(pair) != 2 or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                 for v in pair):
        raise TypeError(f'{func}: argument {name}: expected an int or a pair of ints, '
                        f'got {value!r}')
    return tuple(int(v) for v in pair)


class ShiftFunction(FunctionNode):
    """Translate channel groups by the taps of a ``kh x kw`` window times ``(dy, dx)``.

    Args:
        ksize: Odd int or pair of odd ints ``(kh, kw)``.
        dilate: Int or pair of ints ``(dy, dx)``.
    """

    def __init__(self, ksize: IntOrPair = 3, dilate: IntOrPair = 1) -> None:
        self.kh, self.kw = _pair('shift', 'ksize', ksize)
        if self.kh <= 0 or self.kw <= 0 or self.kh % 2 == 0 or self.kw % 2 == 0:
            raise ValueError(f'shift: argument ksize: expected positive odd sizes, '
                             f'got {(self.kh, self.kw)}')
        self.dy, self.dx = _pair('shift', 'dilate', dilate)

    def _check_arrays(self, in_data):
        type_check.count('shift', in_data, 1)
        x, = in_data
        type_check.argument('shift', 'x', x, kind='f', ndim=4)
        if x.shape[1] < self.kh * self.kw:
            raise type_check.fail('shift', 'x', f'at least kh * kw = {self.kh * self.kw} '
                                  f'channels', f'shape {x.shape}')

    def forward(self, inputs):
        x, = inputs
        xp = backend.get_array_module(x)
        y = xp.zeros_like(x)
        c = x.shape[1]
        offsets = _group_offsets(self.kh, self.kw)
        size = c // len(offsets)
        for i, (oy, ox) in enumerate(offsets):
            stop = (i + 1) * size if i < len(offsets) - 1 else c
            _translate(y[:, i * size:stop], x[:, i * size:stop], oy * self.dy, ox * self.dx)
        return y,

    def backward(self, indexes, grad_outputs):
        return ShiftFunction((self.kh, self.kw), (-self.dy, -self.dx)).apply(grad_outputs)


Shift = ShiftFunction  # Chainer's name of the node


def shift(x: Any, ksize: IntOrPair = 3, dilate: IntOrPair = 1) -> Variable:
    """Shift channel groups of an image by the taps of a ``kh x kw`` window.

    The ``c`` channels are split into ``kh * kw`` groups of ``c // (kh * kw)`` channels (the
    last group also takes the remainder). Group ``g`` is paired with a window tap of offset
    ``(oy, ox)`` in ``[-kh // 2, kh // 2] x [-kw // 2, kw // 2]`` (the centre tap goes to the
    last group) and ``y[n, c, i, j] = x[n, c, i - oy dy, j - ox dx]``, zero where that pixel is
    outside the image. See `Shift: A Zero FLOP, Zero Parameter Alternative to Spatial
    Convolutions <https://arxiv.org/abs/1711.08141>`_.

    Args:
        x: Float input of shape ``(n, c, h, w)`` with ``c >= kh * kw``.
        ksize: Odd int or pair of odd ints ``(kh, kw)``: the window.
        dilate: Int or pair of ints ``(dy, dx)``: distance between taps (negative values
            shift the other way).

    Returns:
        Variable of the shape and dtype of ``x``.

    Raises:
        TypeError: ``x`` not a 4-D float array or with fewer than ``kh * kw`` channels,
            ``ksize``/``dilate`` not ints.
        ValueError: Even or non-positive ``ksize``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> x = np.arange(1, 4, dtype=np.float32).reshape(1, 3, 1, 1).repeat(3, axis=3)
        >>> F.shift(x, ksize=(1, 3))[0, :, 0].array
        array([[1., 1., 0.],
               [0., 2., 2.],
               [3., 3., 3.]], dtype=float32)
    """
    return ShiftFunction(ksize, dilate).apply((x,))[0]
