"""Private helpers of the rnn family: joining without a copy when there is one part, gate
interleaving, and the check of Chainer's removed keyword arguments."""
from __future__ import annotations

from typing import Any, Sequence

from chainlet.functions.array.concat import concat as _concat
from chainlet.functions.array.reshape import reshape
from chainlet.functions.array.stack import stack
from chainlet.variable import Variable


def concat(xs: Sequence[Any], axis: int = 0) -> Variable:
    """:func:`~chainlet.functions.concat`, except that a single part is returned as is."""
    if len(xs) == 1:
        x = xs[0]
        return x if isinstance(x, Variable) else Variable(x, requires_grad=False)
    return _concat(xs, axis=axis)


def interleave(parts: Sequence[Any]) -> Variable:
    """Merge ``K`` arrays of shape ``(B, N, ...)`` into ``(B, K*N, ...)`` with column ``K*n+k``
    taken from ``parts[k][:, n]`` (the gate layout of :func:`~chainlet.functions.lstm`)."""
    shape = tuple(parts[0].shape)
    return reshape(stack(parts, axis=2), (shape[0], shape[1] * len(parts)) + shape[2:])


def check_kwargs(func: str, kwargs: dict) -> None:
    """Reject Chainer's removed ``train``/``use_cudnn`` keywords and any unknown keyword."""
    for key in ('train', 'use_cudnn'):
        if key in kwargs:
            raise ValueError(f'{func}: argument {key}: not supported anymore; use '
                             f'chainlet.using_config({key!r}, ...) instead')
    if kwargs:
        raise TypeError(f'{func}: got unexpected keyword argument(s) {", ".join(kwargs)}')
