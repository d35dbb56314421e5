"""Helpers shared by the distributions: parameter conversion and ``x log x`` with ``0 log 0 = 0``.

``_modified_xlogx`` is Chainer's ``chainer.distributions.utils._modified_xlogx``: a differentiable
``x * log(x)`` that is exactly 0 at ``x == 0`` (the limit), used by entropies of discrete
distributions whose probabilities may be zero. Its derivative ``log(x) + 1`` is ``-inf`` at 0
(with NumPy's divide warning), as Chainer's.

Example:
    >>> import numpy as np
    >>> from chainlet.distributions import utils
    >>> utils._modified_xlogx(np.array([0.0, 1.0, np.e])).array
    array([0.        , 0.        , 2.71828183])
"""
from __future__ import annotations

from typing import Any, Tuple

import numpy

import chainlet
from chainlet import backend
from chainlet import functions as F
from chainlet import type_check
from chainlet.function_node import FunctionNode


def as_param(value: Any) -> chainlet.Variable:
    """Return ``value`` as a Variable (a Variable is kept, so gradients reach the caller's)."""
    if isinstance(value, chainlet.Variable):
        return value
    return chainlet.Variable(backend.get_array_module(value).asarray(value))


def float_like(x: Any, ref: chainlet.Variable) -> Any:
    """``x`` as a Variable of ``ref``'s float dtype, keeping a Variable's graph.

    An array becomes a Variable too: NumPy operators on a 0-d array return NumPy scalars, which
    chainlet functions do not take, while Variable arithmetic keeps 0-d arrays.
    """
    if isinstance(x, chainlet.Variable):
        return x if x.dtype == ref.dtype else F.cast(x, ref.dtype)
    xp = backend.get_array_module(ref.array)
    return chainlet.Variable(xp.asarray(x, dtype=ref.dtype))


def constant_like(value: float, shape: Tuple[int, ...], ref: chainlet.Variable) -> Any:
    """An array of ``shape`` filled with ``value`` on ``ref``'s device and dtype."""
    xp = backend.get_array_module(ref.array)
    return xp.full(shape, value, dtype=ref.dtype)


def broadcast_shape(*values: Any) -> Tuple[int, ...]:
    """The NumPy broadcast of the shapes of ``values``."""
    return tuple(numpy.broadcast_shapes(*(tuple(v.shape) for v in values)))


def raw(x: Any) -> Any:
    """The array of a Variable, or ``x`` itself."""
    return x.array if isinstance(x, chainlet.Variable) else x


class ModifiedXLogX(FunctionNode):
    """``x log x`` with value 0 at ``x == 0`` (instead of NaN); the gradient there is ``-inf``."""

    def _check_arrays(self, in_data: Tuple[Any, ...]) -> None:
        type_check.count('_modified_xlogx', in_data, 1)
        type_check.float_input('_modified_xlogx', 'x', in_data[0])

    def forward(self, inputs: Tuple[Any, ...]) -> Tuple[Any, ...]:
        x, = inputs
        xp = backend.get_array_module(x)
        positive = x > 0
        safe = xp.where(positive, x, xp.ones_like(x))
        self.retain_inputs((0,))
        return xp.where(positive, x * xp.log(safe), xp.zeros_like(x)).astype(x.dtype, copy=False),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        # d/dx (x log x) = log x + 1, which is -inf at 0 (NumPy warns), as Chainer's.
        return gy * (F.log(x) + 1),


def _modified_xlogx(x: Any) -> chainlet.Variable:
    """Differentiable ``x * log(x)`` with ``0 * log(0) = 0``.

    Args:
        x: A float array or Variable.

    Returns:
        A Variable of the same shape and dtype.
    """
    return ModifiedXLogX().apply((x,))[0]


def where_in_support(inside: Any, value: chainlet.Variable, fill: float) -> chainlet.Variable:
    """``value`` where the boolean array ``inside`` holds, the constant ``fill`` elsewhere.

    The constant branch carries no gradient, so points outside the support (where ``value``
    may be NaN) contribute none.
    """
    xp = backend.get_array_module(value.array)
    inside = xp.asarray(inside)
    shape = tuple(xp.broadcast(inside, value.array).shape)
    if value.shape != shape:
        value = F.broadcast_to(value, shape)
    inside = xp.broadcast_to(inside, shape)
    return F.where(inside, value, xp.full(shape, fill, dtype=value.dtype))


def lbeta(a: Any, b: Any) -> chainlet.Variable:
    """``log B(a, b) = lgamma(a) + lgamma(b) - lgamma(a + b)``."""
    return F.lgamma(a) + F.lgamma(b) - F.lgamma(a + b)
