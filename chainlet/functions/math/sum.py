"""Sum and mean over axes."""
from __future__ import annotations

from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array.broadcast import broadcast_to
from chainlet.functions.array.reshape import reshape
from chainlet.utils.array import broadcast_view
from chainlet.variable import Variable

Axis = Optional[Union[int, Sequence[int]]]
# Compared by identity (NumPy's dtypes of native byte order are singletons): ``dtype ==
# numpy.float16`` builds a dtype from the type on every call, four times the cost on this path.
_FLOAT16 = numpy.dtype(numpy.float16)


def normalize_axis(func: str, axis: Axis, ndim: int) -> Optional[tuple]:
    """Return ``axis`` as a sorted tuple of non-negative ints (``None`` stays ``None``)."""
    if axis is None:
        return None
    if isinstance(axis, int):
        axes: tuple = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise TypeError(f'{func}: argument axis: expected None, an int or a tuple of ints, '
                        f'got {axis!r}')
    out = []
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool):
            raise TypeError(f'{func}: argument axis: expected int or tuple of ints, '
                            f'got {type(a).__name__}')
        if not -ndim <= a < ndim:
            raise ValueError(f'{func}: argument axis: expected values in [{-ndim}, {ndim}), '
                             f'got {axis}')
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f'{func}: argument axis: duplicate axes in {axis}')
    return tuple(sorted(out))


def check_axis_type(func: str, axis: Any) -> None:
    """Chainer's rule for ``sum``/``prod``: a list is not an axis (a tuple is); the entries
    are checked by :func:`normalize_axis`."""
    if isinstance(axis, list):
        raise TypeError(f'{func}: argument axis: expected None, an int or a tuple of ints, '
                        f'got {axis!r}')


class Sum(FunctionNode):
    """``y = x.sum(axis, keepdims)``."""

    def __init__(self, axis: Axis = None, keepdims: bool = False) -> None:
        if axis is not None:
            check_axis_type('sum', axis)
        self.axis: Any = axis  # normalized to a tuple in forward
        self.keepdims = keepdims

    def _check_arrays(self, in_data):
        if in_data[0].dtype.kind != 'f':  # the test inline, the message only on failure
            type_check.float_input('sum', 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        if self.axis is not None:
            # Here rather than in the check, which config.type_check = False skips.
            self.axis = normalize_axis('sum', self.axis, x.ndim)
        self._shape = x.shape
        if x.dtype is _FLOAT16:
            # float16 accumulates in float32 (a float16 running sum stops growing at 2048
            # and overflows past 65504): only the total is rounded to float16.
            y = x.sum(axis=self.axis, keepdims=self.keepdims, dtype=numpy.float32)
            return backend.get_array_module(x).asarray(y, dtype=x.dtype),
        if self.axis is None and not self.keepdims and type(x) is numpy.ndarray:
            return numpy.asarray(x.sum()),  # a loss: the method, no keywords, a 0-d array
        y = x.sum(axis=self.axis, keepdims=self.keepdims)
        return numpy.asarray(y) if isinstance(y, numpy.generic) else y,

    def backward(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        kept = self._kept_shape()
        if kept is not None:
            gy = reshape(gy, kept)
        return broadcast_to(gy, self._shape),

    def _kept_shape(self) -> Optional[tuple]:
        """The shape of the output with the summed axes kept (``None``: it broadcasts to the
        input's shape as it is, as a 0-d total or a kept-dims output does)."""
        shape = self._shape
        if self.axis is not None and not self.keepdims and len(shape) > 0:
            kept = list(shape)
            for a in self.axis:
                kept[a] = 1
            return tuple(kept)
        return None

    def _backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        kept = self._kept_shape()
        if kept is not None:
            gy = gy.reshape(kept)
        return gy if gy.shape == self._shape else broadcast_view(gy, self._shape),


class Mean(Sum):
    """``y = x.mean(axis, keepdims)`` with ``n`` the number of elements reduced into each output.

    One node rather than ``sum(x) / n``: a float16 sum of more than 65504 (a 256x256 image of
    0.5) overflows before the division, so the sum is accumulated and divided in float32 and
    only the mean is rounded to float16, as ``numpy.mean`` does.
    """

    def __init__(self, axis: Axis = None, keepdims: bool = False, n: int = 1) -> None:
        super().__init__(axis, keepdims)
        self.n = n

    def _check_arrays(self, in_data):
        if in_data[0].dtype.kind != 'f':
            type_check.float_input('mean', 'x', in_data[0])

    def forward(self, inputs):
        x, = inputs
        self._shape = x.shape
        xp = backend.get_array_module(x)
        dtype = numpy.float32 if x.dtype is _FLOAT16 else x.dtype.type
        y = x.sum(axis=self.axis, keepdims=self.keepdims, dtype=dtype)
        if not self.n:  # the mean of nothing is NaN, as in NumPy, without its warning
            return xp.full(numpy.shape(y), numpy.nan, x.dtype),
        return xp.asarray(y / dtype(self.n), dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.cast import cast
        from chainlet.functions.math.basic_math import DivByConstant, MulConstant
        gy, = grad_outputs
        node = DivByConstant(self.n) if self.n else MulConstant(float('nan'))
        if gy.dtype is _FLOAT16:  # n itself may pass float16's 65504: divide in float32
            gy = cast(node.apply((cast(gy, numpy.float32),))[0], numpy.float16)
        else:
            gy = node.apply((gy,))[0]
        return super().backward(indexes, (gy,))

    def _backward_arrays(self, indexes, grad_outputs):
        gy = grad_outputs[0]
        dtype = numpy.float32 if gy.dtype is _FLOAT16 else gy.dtype.type
        scaled = gy / dtype(self.n) if self.n else gy * dtype(numpy.nan)
        return super()._backward_arrays(indexes, (scaled.astype(gy.dtype, copy=False),))


def sum(x: Any, axis: Axis = None, keepdims: bool = False) -> Variable:  # noqa: A001
    """Sum of the elements over ``axis``.

    Args:
        x: Variable or array of floats.
        axis: Axis or axes to reduce; ``None`` reduces all.
        keepdims: Keep reduced axes with size one.

    Returns:
        Variable with the reduced shape (0-d when everything is summed).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.sum(np.array([[1.0, 2.0], [3.0, 4.0]]), axis=0).array
        array([4., 6.])
    """
    return Sum(axis, keepdims).apply((x,))[0]


def mean(x: Any, axis: Axis = None, weights: Optional[Any] = None,
         keepdims: bool = False) -> Variable:
    """Arithmetic mean over ``axis``: ``sum(x, axis) / n`` with ``n`` the reduced size.

    As in Chainer, ``F.mean`` is :func:`~chainlet.functions.average`: with ``weights`` it
    returns the weighted average (see there for their shapes).

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.mean(np.array([1.0, 2.0, 6.0])).array
        array(3.)
        >>> F.mean(np.array([1.0, 2.0, 6.0]), weights=np.array([1.0, 1.0, 0.0])).array
        array(1.5)
    """
    if weights is not None:
        from chainlet.functions.math.average import average
        return average(x, axis, weights, keepdims)
    return _mean('mean', x, axis, keepdims)


def _mean(func: str, x: Any, axis: Axis, keepdims: bool) -> Variable:
    """``mean`` whose argument errors name ``func`` (``mean`` or ``average``)."""
    data = x.array if isinstance(x, Variable) else x
    if not backend.is_array(data):
        raise type_check.fail(func, 'x', 'a Variable or an ndarray', type(x).__name__)
    type_check.float_input(func, 'x', data)
    axes = normalize_axis(func, axis, data.ndim)
    n = data.size
    if axes is not None:
        n = 1
        for a in axes:
            n *= data.shape[a]
    return Mean(axes, keepdims, n).apply((x,))[0]


def __getattr__(name: str) -> Any:
    # Chainer's module path for sum_to and SumTo (they live in ``array.sum_to``); fetched on first
    # use, so that importing this module does not import the ``array`` package.
    if name in ('sum_to', 'SumTo'):
        from chainlet.functions.array import sum_to as module
        return getattr(module, name)
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
