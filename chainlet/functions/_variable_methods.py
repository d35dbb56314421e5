"""The differentiable methods and operators of :class:`~chainlet.Variable`, attached in one place.

``Variable`` lives in the core, which imports nothing from ``chainlet.functions``; its methods
that apply functions (``x + y``, ``x.reshape(...)``, ``x[i]``, ``x.T``, ...) are attached here,
once, when ``chainlet`` is imported (:func:`install`).

Example:
    >>> import numpy as np, chainlet
    >>> x = chainlet.Variable(np.arange(6.0).reshape(2, 3))
    >>> (x.T @ x).shape, x.sum(axis=0).array, x[1].array
    ((3, 3), array([3., 5., 7.]), array([3., 4., 5.]))
"""
from __future__ import annotations

from typing import Any

from chainlet.functions.array.get_item import get_item
from chainlet.functions.array.reshape import reshape as _reshape
from chainlet.functions.array.transpose import transpose as _transpose
from chainlet.functions.math import basic_math as bm
from chainlet.functions.math.average import average
from chainlet.functions.math.sum import sum as _sum
from chainlet.variable import Variable


def _T(self: Variable) -> Variable:
    """Transpose (all axes reversed)."""
    return _transpose(self)


def _reshape_method(self: Variable, *shape: Any) -> Variable:
    """Differentiable reshape; ``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return _reshape(self, shape)


def _transpose_method(self: Variable, *axes: Any) -> Variable:
    """Differentiable transpose; no axes reverses them."""
    order: Any = axes
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        order = axes[0]
    return _transpose(self, order or None)


def _sum_method(self: Variable, axis: Any = None, keepdims: bool = False) -> Variable:
    """Differentiable sum over ``axis``."""
    return _sum(self, axis=axis, keepdims=keepdims)


def _mean_method(self: Variable, axis: Any = None, *, weights: Any = None,
                 keepdims: bool = False) -> Variable:
    """Differentiable mean over ``axis``, weighted by ``weights`` if given (as Chainer's,
    this is :func:`~chainlet.functions.average`)."""
    return average(self, axis=axis, weights=weights, keepdims=keepdims)


def _getitem(self: Variable, slices: Any) -> Variable:
    """Differentiable indexing (:func:`~chainlet.functions.get_item`)."""
    return get_item(self, slices)


def _pos(self: Variable) -> Variable:
    return self


def install() -> None:
    """Attach the methods and the arithmetic operators to :class:`Variable` (idempotent)."""
    methods = {
        'T': property(_T), 'reshape': _reshape_method, 'transpose': _transpose_method,
        'sum': _sum_method, 'mean': _mean_method, '__getitem__': _getitem,
        '__neg__': bm.neg, '__pos__': _pos, '__abs__': bm.absolute,
        '__add__': bm.add2, '__radd__': bm.reflect(bm.add2),
        '__sub__': bm.sub, '__rsub__': bm.rsub,
        '__mul__': bm.mul, '__rmul__': bm.reflect(bm.mul),
        '__truediv__': bm.div, '__rtruediv__': bm.rdiv,
        '__floordiv__': bm.floordiv, '__rfloordiv__': bm.rfloordiv,
        '__pow__': bm.pow, '__rpow__': bm.rpow,
        '__matmul__': bm.matmul, '__rmatmul__': bm.rmatmul,
    }
    for name, value in methods.items():
        setattr(Variable, name, value)
