"""Private helpers of the rnn family: joining arrays, gate interleaving, dropout and ReLU masks.

They are built so that every result stays differentiable to any order (the gradient of a join
is a set of slices, and masks are constants), which lets the recurrent functions be composed
from them without breaking double backprop.
"""
from __future__ import annotations

from typing import Any, Sequence

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.get_item import get_item
from chainlet.functions.array.reshape import reshape
from chainlet.variable import Variable


class _Concat(FunctionNode):
    """Join arrays along ``axis``; the gradient of each input is a slice of ``gy``."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def check_type_forward(self, in_data):
        x0 = in_data[0]
        type_check.float_input('concat', 'xs[0]', x0)
        for k, x in enumerate(in_data[1:], 1):
            if x.dtype != x0.dtype:
                raise type_check.fail('concat', f'xs[{k}]', f'dtype {x0.dtype}', str(x.dtype))
            if x.ndim != x0.ndim or any(a != b for d, (a, b) in enumerate(zip(x.shape, x0.shape))
                                        if d != self.axis):
                raise type_check.fail('concat', f'xs[{k}]',
                                      f'the shape of xs[0] {x0.shape} except on axis {self.axis}',
                                      str(x.shape))

    def forward(self, inputs):
        xp = backend.get_array_module(*inputs)
        self._sizes = [x.shape[self.axis] for x in inputs]
        return xp.concatenate(inputs, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        starts = [0]
        for s in self._sizes:
            starts.append(starts[-1] + s)
        lead = (slice(None),) * self.axis
        return tuple(get_item(gy, lead + (slice(starts[i], starts[i + 1]),)) for i in indexes)


def concat(xs: Sequence[Any], axis: int = 0) -> Variable:
    """Concatenate Variables or arrays along ``axis`` (one input is returned as is)."""
    if len(xs) == 1:
        x = xs[0]
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return _Concat(axis).apply(tuple(xs))[0]


def stack(xs: Sequence[Any]) -> Variable:
    """Stack equally shaped Variables along a new leading axis."""
    return concat([reshape(x, (1,) + tuple(x.shape)) for x in xs], axis=0)


def interleave(parts: Sequence[Any]) -> Variable:
    """Merge ``K`` arrays of shape ``(B, N, ...)`` into ``(B, K*N, ...)`` with column ``K*n+k``
    taken from ``parts[k][:, n]`` (the gate layout of :func:`~chainlet.functions.lstm`)."""
    shape = tuple(parts[0].shape)
    expanded = [reshape(p, shape[:2] + (1,) + shape[2:]) for p in parts]
    return reshape(concat(expanded, axis=2), (shape[0], shape[1] * len(parts)) + shape[2:])


def dropout(x: Variable, ratio: float) -> Variable:
    """Multiply ``x`` by a scaled Bernoulli mask drawn from the global RNG (training only)."""
    xp = backend.get_array_module(x.array)
    scale = x.dtype.type(1.0 / (1.0 - ratio))
    mask = (xp.random.rand(*x.shape) >= ratio).astype(x.dtype) * scale
    return x * mask


def relu(x: Variable) -> Variable:
    """``max(x, 0)`` as ``x`` times a constant 0/1 mask (derivative 0 at 0, as in Chainer)."""
    return x * (x.array > 0).astype(x.dtype)


def check_kwargs(func: str, kwargs: dict) -> None:
    """Reject Chainer's removed ``train``/``use_cudnn`` keywords and any unknown keyword."""
    for key in ('train', 'use_cudnn'):
        if key in kwargs:
            raise ValueError(f'{func}: argument {key}: not supported anymore; use '
                             f'chainlet.using_config({key!r}, ...) instead')
    if kwargs:
        raise TypeError(f'{func}: got unexpected keyword argument(s) {", ".join(kwargs)}')
