"""``Bias``: adds a learned (or given) bias broadcast along some axes of the input.

The link wraps :func:`chainlet.functions.bias`. With ``shape`` it owns the parameter ``b`` and
is called with one input; without, it owns nothing and is called with ``(x, b)``. The attribute
``b`` exists only in the first case (Chainer's convention, which code tests with ``hasattr``).
"""
from __future__ import annotations

from typing import Any, Sequence, Union

from chainlet.functions.math.bias import bias
from chainlet.link import Link
from chainlet.links import _util
from chainlet.parameter import Parameter
from chainlet.variable import Variable


class ArgumentCountError(TypeError, AssertionError):
    """A link called with the wrong number of inputs.

    A ``TypeError`` (Python's error for a wrong call) that is also an ``AssertionError``,
    which is what Chainer's ``Bias``/``Scale`` raise in debug mode; code of either kind
    catches it.
    """


def check_count(owner: str, xs: tuple, expected: int, why: str) -> None:
    """Raise :class:`ArgumentCountError` unless ``len(xs) == expected``."""
    if len(xs) != expected:
        raise ArgumentCountError(f'{owner}: expected {expected} input(s) ({why}), got '
                                 f'{len(xs)}')


def as_shape(owner: str, name: str, shape: Any) -> tuple:
    """``shape`` (an int or a sequence of ints) as a tuple."""
    if isinstance(shape, int) and not isinstance(shape, bool):
        return (shape,)
    if isinstance(shape, (tuple, list)):
        return tuple(_util.check_size(owner, name, s) for s in shape)
    raise TypeError(f'{owner}: argument {name}: expected an int or a tuple of ints, got '
                    f'{type(shape).__name__}')


class Bias(Link):
    """Broadcasted addition ``y = x + b`` with ``b`` aligned to ``x`` from ``axis`` on.

    Args:
        axis: First axis of ``x`` along which ``b`` is applied.
        shape: Shape of the learned bias ``b``; ``None`` to pass ``b`` at each call instead.
        initial_bias: Initializer of ``b``; default 0.

    Example:
        >>> import numpy as np, chainlet.links as L
        >>> layer = L.Bias(axis=1, shape=(2,), initial_bias=np.array([1.0, -1.0], 'f'))
        >>> layer(np.zeros((1, 2, 3), np.float32)).array
        array([[[ 1.,  1.,  1.],
                [-1., -1., -1.]]], dtype=float32)
        >>> L.Bias(axis=1)(np.zeros((1, 2), 'f'), np.ones(2, 'f')).array
        array([[1., 1.]], dtype=float32)
    """

    def __init__(self, axis: int = 1, shape: Union[int, Sequence[int], None] = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        self.axis = axis
        if shape is not None:
            shape = as_shape('Bias', 'shape', shape)
            dtype = _util.resolve_dtype(initial_bias)
            with self.init_scope():
                self.b = Parameter(_util.get_initializer(
                    initial_bias, 0, dtype, 'Bias', 'initial_bias'), shape)

    def forward(self, *xs: Any) -> Variable:
        """``forward(x)`` with the learned ``b``, or ``forward(x, b)`` without one."""
        if hasattr(self, 'b'):
            check_count('Bias', xs, 1, 'the link owns b')
            return bias(xs[0], self.b, self.axis)
        check_count('Bias', xs, 2, 'x and b: the link was built without shape')
        return bias(xs[0], xs[1], self.axis)

    def _repr_args(self) -> dict:
        return {'axis': self.axis,
                'shape': self.b.shape if hasattr(self, 'b') else None}
