"""``keras.ops.rearrange``: einops-style axis rearrangement (``'b (h w) c -> b h w c'``).

A pattern names the input axes on the left and the output axes on the right; parentheses group
axes that share one tensor axis. The op is a reshape to the elementary axes, a transpose and a
reshape to the output groups, so it is differentiable like those.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import ops
    >>> ops.rearrange(np.zeros((2, 6, 3)), 'b (h w) c -> b c h w', h=2).shape
    (2, 3, 2, 3)
"""
from __future__ import annotations

import re
from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.ops._dispatch import is_float, keras_op

_TOKEN = re.compile(r'\(|\)|[A-Za-z_][A-Za-z0-9_]*|\S')


def _parse(side: str, pattern: str) -> list:
    """Groups of axis names: ``'b (h w) c'`` -> ``[['b'], ['h', 'w'], ['c']]``."""
    groups: list = []
    current: Optional[list] = None
    for token in _TOKEN.findall(side):
        if token == '(':
            if current is not None:
                raise ValueError(f'keras.ops.rearrange: nested parentheses in {pattern!r}')
            current = []
        elif token == ')':
            if current is None:
                raise ValueError(f'keras.ops.rearrange: unbalanced ")" in {pattern!r}')
            groups.append(current)
            current = None
        elif token.isidentifier():
            (current if current is not None else groups).append(
                token if current is not None else [token])
        else:
            raise ValueError(f'keras.ops.rearrange: unsupported token {token!r} in {pattern!r} '
                             f'(axis names and parentheses only)')
    if current is not None:
        raise ValueError(f'keras.ops.rearrange: unbalanced "(" in {pattern!r}')
    return groups


@keras_op('tensor', module='einops')
def rearrange(tensor: Any, pattern: str, **axes_lengths: int) -> Any:
    """Reorder, split and merge axes as ``pattern`` says; ``axes_lengths`` give the sizes
    that a split cannot infer."""
    if '->' not in pattern:
        raise ValueError(f"keras.ops.rearrange: the pattern needs '->', got {pattern!r}")
    left, right = (_parse(side, pattern) for side in pattern.split('->'))
    if len(left) != tensor.ndim:
        raise ValueError(f'keras.ops.rearrange: the pattern {pattern!r} names {len(left)} '
                         f'input axes, the tensor has {tensor.ndim}')
    names_in = [n for g in left for n in g]
    names_out = [n for g in right for n in g]
    if sorted(names_in) != sorted(names_out) or len(set(names_in)) != len(names_in):
        raise ValueError(f'keras.ops.rearrange: both sides must name the same axes once each, '
                         f'got {pattern!r}')
    sizes = {}
    for group, dim in zip(left, tensor.shape):
        unknown = [n for n in group if n not in axes_lengths]
        known = int(numpy.prod([axes_lengths[n] for n in group if n in axes_lengths]))
        if len(unknown) > 1:
            raise ValueError(f'keras.ops.rearrange: cannot infer the sizes of {unknown} in '
                             f'{pattern!r}; give them as keyword arguments')
        if unknown:
            if known == 0 or dim % known:
                raise ValueError(f'keras.ops.rearrange: axis of size {dim} cannot be split '
                                 f'into {group} with {axes_lengths}')
            sizes[unknown[0]] = dim // known
        elif known != dim:
            raise ValueError(f'keras.ops.rearrange: group {group} has size {known}, the axis '
                             f'has {dim}')
        sizes.update({n: int(axes_lengths[n]) for n in group if n in axes_lengths})
    x = tensor if is_float(tensor) else tensor.array
    reshape = F.reshape if is_float(tensor) else (lambda a, s: a.reshape(s))
    transpose = F.transpose if is_float(tensor) else (lambda a, p: a.transpose(p))
    x = reshape(x, tuple(sizes[n] for n in names_in))
    x = transpose(x, tuple(names_in.index(n) for n in names_out))
    return reshape(x, tuple(int(numpy.prod([sizes[n] for n in g])) for g in right))


__all__ = ['rearrange']
