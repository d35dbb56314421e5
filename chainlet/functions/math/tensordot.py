"""``tensordot``: sum of products over chosen axes of two arrays."""
from __future__ import annotations

import numbers
from typing import Any, Sequence, Union

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

Axes = Union[int, Sequence[Any]]


def _argsort(values: Sequence[int]) -> list:
    return sorted(range(len(values)), key=lambda i: values[i])


def _normalize_axes(axes: Axes, a_ndim: int, b_ndim: int) -> tuple:
    """Return ``(a_axes, b_axes)`` as tuples of non-negative ints, or raise."""
    if isinstance(axes, numbers.Integral) and not isinstance(axes, bool):
        k = int(axes)
        if not 0 <= k <= min(a_ndim, b_ndim):
            raise ValueError(f'tensordot: argument axes: expected an int in [0, '
                             f'{min(a_ndim, b_ndim)}] (the smaller ndim), got {axes}')
        return tuple(range(a_ndim - k, a_ndim)), tuple(range(k))
    if not isinstance(axes, (tuple, list)):
        raise TypeError(f'tensordot: argument axes: expected an int or a pair of sequences of '
                        f'ints, got {axes!r}')
    if len(axes) != 2:
        # A sequence of the wrong length is a wrong value (ValueError), as in Chainer.
        raise ValueError(f'tensordot: argument axes: expected a pair of sequences of ints, got '
                         f'{axes!r}')
    pair = []
    for name, ax, ndim in (('a', axes[0], a_ndim), ('b', axes[1], b_ndim)):
        ax = (ax,) if isinstance(ax, numbers.Integral) else tuple(ax)
        out = []
        for i in ax:
            if not isinstance(i, numbers.Integral) or isinstance(i, bool):
                raise TypeError(f'tensordot: argument axes: expected ints, got {axes!r}')
            if not -ndim <= int(i) < ndim:
                raise ValueError(f'tensordot: argument axes: axis {i} is out of range for '
                                 f'{name} of ndim {ndim}')
            out.append(int(i) % ndim)
        if len(set(out)) != len(out):
            raise ValueError(f'tensordot: argument axes: repeated axis for {name}: {axes!r}')
        pair.append(tuple(out))
    if len(pair[0]) != len(pair[1]):
        raise ValueError(f'tensordot: argument axes: expected as many axes for a as for b, '
                         f'got {axes!r}')
    return pair[0], pair[1]


class TensorDot(FunctionNode):
    """``y = tensordot(a, b, axes=(a_axes, b_axes))``; the output axes are the free axes of
    ``a`` then those of ``b``. Each gradient is a tensordot of ``gy`` with the other operand,
    transposed back to the operand's axis order.

    The operands may differ in float dtype: the product has their promoted dtype (or
    ``dtype`` when given), and each gradient is cast back to its operand's dtype, as in
    Chainer."""

    def __init__(self, a_axes: tuple, b_axes: tuple, dtype: Any = None) -> None:
        self.a_axes = a_axes
        self.b_axes = b_axes
        self.dtype = dtype

    def _check_arrays(self, in_data):
        a, b = in_data
        type_check.float_input('tensordot', 'a', a)
        type_check.float_input('tensordot', 'b', b)
        for i, j in zip(self.a_axes, self.b_axes):
            if a.shape[i] != b.shape[j]:
                # ValueError as in Chainer, whose forward checks the paired lengths.
                raise ValueError(f'tensordot: arguments a and b: summed axes differ in length: '
                                 f'axis {i} of a (shape {a.shape}) and axis {j} of b (shape '
                                 f'{b.shape})')

    def forward(self, inputs):
        a, b = inputs
        self.retain_inputs((0, 1))
        xp = backend.get_array_module(a)
        y = xp.tensordot(a, b, axes=(self.a_axes, self.b_axes))
        return y if self.dtype is None else y.astype(self.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.transpose import transpose
        a, b = self.get_retained_inputs()
        gy = grad_outputs[0]
        a_free = [i for i in range(a.ndim) if i not in self.a_axes]
        b_free = [j for j in range(b.ndim) if j not in self.b_axes]
        na = len(a_free)
        gy_a = tuple(range(na))
        gy_b = tuple(range(na, gy.ndim))
        ret = []
        for i in indexes:
            if i == 0:
                # Axes of the result, named by the axis of a each one stands for.
                g = TensorDot(gy_b, tuple(b_free), a.dtype).apply((gy, b))[0]
                order = a_free + [self.a_axes[k] for k in _argsort(self.b_axes)]
            else:
                g = TensorDot(tuple(a_free), gy_a, b.dtype).apply((a, gy))[0]
                order = [self.b_axes[k] for k in _argsort(self.a_axes)] + b_free
            perm = _argsort(order)
            ret.append(g if perm == sorted(perm) else transpose(g, perm))
        return tuple(ret)


def tensordot(a: Any, b: Any, axes: Axes = 2) -> Variable:
    """Tensor dot product: sum of ``a * b`` over paired axes, like :func:`numpy.tensordot`.

    Args:
        a: Variable or array of floats.
        b: Variable or array of floats (a different float dtype is promoted).
        axes: An int ``k`` pairs the last ``k`` axes of ``a`` with the first ``k`` of ``b``;
            a pair of sequences ``(a_axes, b_axes)`` pairs ``a_axes[i]`` with ``b_axes[i]``.

    Returns:
        Variable whose axes are the unpaired axes of ``a`` followed by those of ``b``.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.tensordot(np.ones((5, 3, 2)), np.ones((3, 2, 4)), axes=2).shape
        (5, 4)
        >>> F.tensordot(np.ones((3, 5)), np.ones((4, 3)), axes=([0], [1])).shape
        (5, 4)
    """
    nds = []
    for name, v in (('a', a), ('b', b)):
        data = v.array if isinstance(v, Variable) else v
        if not backend.is_array(data):
            raise type_check.fail('tensordot', name, 'a Variable or an ndarray',
                                  type(v).__name__)
        nds.append(data.ndim)
    a_nd, b_nd = nds
    a_axes, b_axes = _normalize_axes(axes, a_nd, b_nd)
    return TensorDot(a_axes, b_axes).apply((a, b))[0]
