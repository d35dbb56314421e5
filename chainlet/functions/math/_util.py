"""Helpers shared by the math functions: a masked gradient and reduction bookkeeping."""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


class MaskGrad(FunctionNode):
    """``gx = where(cond, gy, 0)`` for a fixed boolean ``cond``.

    The map is linear in ``gy``, so its gradient is the same mask applied again; this makes
    the backward of clip, maximum and max differentiable to any order.
    """

    def __init__(self, cond: Any) -> None:
        self.cond = cond

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        return xp.where(self.cond, gy, xp.zeros((), gy.dtype)),

    def backward(self, indexes, grad_outputs):
        return MaskGrad(self.cond).apply(grad_outputs)


def masked(gy: Any, cond: Any) -> Variable:
    """``gy`` where ``cond`` holds and zero elsewhere (differentiable in ``gy``)."""
    return MaskGrad(cond).apply((gy,))[0]


def kept_shape(shape: tuple, axes: Optional[tuple]) -> tuple:
    """``shape`` with the reduced ``axes`` (all when ``None``) set to one."""
    if axes is None:
        return (1,) * len(shape)
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def reduced_size(shape: tuple, axes: Optional[tuple]) -> int:
    """Number of elements combined into each output of a reduction over ``axes``."""
    n = 1
    for i, s in enumerate(shape):
        if axes is None or i in axes:
            n *= s
    return n


def expand_to_input(y: Any, shape: tuple, axes: Optional[tuple]) -> Variable:
    """Reshape a reduced Variable ``y`` to ``kept_shape`` and broadcast it back to ``shape``."""
    from chainlet.functions.array.broadcast import broadcast_to
    from chainlet.functions.array.reshape import reshape
    return broadcast_to(reshape(y, kept_shape(shape, axes)), shape)


def expand_along(func: str, x: Any, y: Any, axis: int) -> Variable:
    """``y`` reshaped and broadcast to ``x``'s shape, its axes lined up from ``x``'s ``axis``.

    A mismatch raises ``ValueError`` naming ``func``; in debug mode ``AssertionError``, which
    is what Chainer's ``bias`` and ``scale`` raise there.
    """
    from chainlet import type_check
    from chainlet._config import config
    from chainlet.functions.array.broadcast import broadcast_to
    from chainlet.functions.array.reshape import reshape
    type_check.array_input(func, 'x', x)
    type_check.array_input(func, 'y', y)
    xs, ys = x.shape, y.shape
    if xs[axis:axis + len(ys)] != ys:
        error = AssertionError if config.debug else ValueError
        raise error(f'{func}: argument y: expected shape {xs[axis:axis + len(ys)]} (x.shape '
                    f'{xs} from axis {axis}), got {ys}')
    kept = (1,) * axis + ys + (1,) * (len(xs) - axis - len(ys))
    return broadcast_to(reshape(y, kept), xs)
