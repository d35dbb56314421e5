"""``cumprod``: cumulative product along an axis, exact also where ``x`` holds zeros.

The gradient cannot divide by ``x`` (zeros are common), so it is built from the exclusive
prefix products and a first-order linear recurrence. For ``y_i = x_0 ... x_i``,
``gx_i = (x_0 ... x_{i-1}) z_i`` with ``z_i = gy_i + x_{i+1} z_{i+1}`` run from the end of the
axis. :class:`LinearRecurrence` (``z_i = b_i + c_i z_{i-1}``) is a node of its own whose
gradients are again recurrences, so cumprod is differentiable to any order.
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable


def _take(x: Any, axis: int, sl: slice) -> Any:
    return x[(slice(None),) * axis + (sl,)]


def _shift(x: Any, axis: int) -> Variable:
    """``x`` moved one step along ``axis``: a zero first, the last entry dropped."""
    from chainlet.functions.array.concat import concat
    xp = backend.get_array_module(x)
    data = x.array if isinstance(x, Variable) else x
    shape = list(data.shape)
    shape[axis] = 1
    return concat((xp.zeros(shape, data.dtype), _take(x, axis, slice(None, -1))), axis)


def _reverse_recurrence(c: Any, g: Any, axis: int) -> Variable:
    """``w_i = g_i + c_{i+1} w_{i+1}`` (``w_{n-1} = g_{n-1}``), by flipping ``axis``."""
    from chainlet.functions.array.flip import flip
    w, = LinearRecurrence(axis).apply((_shift(flip(c, axis), axis), flip(g, axis)))
    return flip(w, axis)


class LinearRecurrence(FunctionNode):
    """``z_i = b_i + c_i z_{i-1}`` along ``axis`` with ``z_{-1} = 0`` (``c_0`` is unused).

    ``z`` is linear in ``b``; the adjoint recurrence runs the other way:
    ``gb_i = w_i = gz_i + c_{i+1} w_{i+1}`` and ``gc_i = w_i z_{i-1}``.
    """

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        c, b = inputs
        xp = backend.get_array_module(c, b)
        z = xp.array(b, copy=True)
        for i in range(1, b.shape[self.axis]):
            cur = _take(z, self.axis, slice(i, i + 1))
            cur += _take(c, self.axis, slice(i, i + 1)) * _take(z, self.axis, slice(i - 1, i))
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return z,

    def backward(self, indexes, grad_outputs):
        c, = self.get_retained_inputs()
        z, = self.get_retained_outputs()
        w = _reverse_recurrence(c, grad_outputs[0], self.axis)
        return w * _shift(z, self.axis), w


class Cumprod(FunctionNode):
    """``y = cumprod(x, axis)``; see the module docstring for the gradient."""

    def __init__(self, axis: int) -> None:
        self.axis = axis

    @property
    def label(self) -> str:
        return 'cumprod'

    def _check_arrays(self, in_data):
        type_check.count('cumprod', in_data, 1)
        x, = in_data
        type_check.float_input('cumprod', 'x', x)
        if not -x.ndim <= self.axis < x.ndim:
            raise type_check.fail('cumprod', 'axis', f'an axis in [{-x.ndim}, {x.ndim})',
                                  str(self.axis))

    def forward(self, inputs):
        x, = inputs
        self.axis %= x.ndim
        self.retain_inputs((0,))
        self.retain_outputs((0,))
        return backend.get_array_module(x).cumprod(x, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.concat import concat
        x, = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        axis = self.axis
        if x.shape[axis] == 0:
            return gy,
        shape = list(x.shape)
        shape[axis] = 1
        # x_0 ... x_{i-1}: the outputs moved one step, with a one in front.
        exclusive = concat((x.xp.ones(shape, x.dtype), _take(y, axis, slice(None, -1))), axis)
        return exclusive * _reverse_recurrence(x, gy, axis),


def cumprod(x: Any, axis: Optional[int] = None) -> Variable:
    """Cumulative product of the elements along ``axis``.

    Args:
        x: Variable or array of floats.
        axis: Axis along which to multiply; ``None`` flattens ``x`` first.

    Returns:
        Variable of ``x``'s shape (1-d of ``x.size`` when ``axis`` is ``None``) and dtype.

    Raises:
        TypeError: ``axis`` is neither ``None`` nor an int.
        InvalidType: ``axis`` is out of range, or ``x`` is not a float array.

    Example:
        >>> import numpy as np, chainlet.functions as F
        >>> F.cumprod(np.array([[1.0, 2.0, 3.0], [4.0, 0.0, 5.0]]), axis=1).array
        array([[1., 2., 6.],
               [4., 0., 0.]])
    """
    if axis is not None and (not isinstance(axis, int) or isinstance(axis, bool)):
        raise TypeError(f'cumprod: argument axis: expected None or an int, got {axis!r}')
    if axis is None:
        from chainlet.functions.array.reshape import reshape
        x = reshape(x, (-1,))
        axis = 0
    return Cumprod(axis).apply((x,))[0]
