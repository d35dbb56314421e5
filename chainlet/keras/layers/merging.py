"""Merge layers: ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``, ``Minimum``,
``Concatenate``, ``Dot``, and their functional forms (``add``, ``concatenate``, ...).

Each takes a list of tensors. The element-wise ones accept shapes that broadcast (equal sizes
or 1 on each axis; a tensor of lower rank gets size-1 axes after the batch axis, as in Keras)
and raise ``ValueError`` naming the layer and the shapes otherwise.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence, cast

import chainlet.functions as F
from chainlet.keras.engine.base_layer import Layer


def _is_shape(value: Any) -> bool:
    return isinstance(value, tuple) and all(d is None or isinstance(d, int) for d in value)


def _as_list(layer: Layer, inputs: Any, exactly: Optional[int] = None) -> list:
    """The list of inputs (or of input shapes) of a merge layer, checked."""
    # Layer.__init__ sets name through __dict__, out of mypy's sight.
    where = f'{type(layer).__name__} "{cast(Any, layer).name}"'
    if not isinstance(inputs, (list, tuple)) or (_is_shape(inputs) and inputs):
        raise ValueError(f'{where}: a merge layer should be called on a list of inputs, got '
                         f'{type(inputs).__name__}')
    if exactly is not None and len(inputs) != exactly:
        raise ValueError(f'{where}: expected exactly {exactly} inputs, got {len(inputs)}')
    if not inputs:
        raise ValueError(f'{where}: expected at least 1 input, got an empty list')
    return list(inputs)


class _Merge(Layer):
    """Element-wise merge of a list of tensors with Keras's broadcasting rule."""

    _exactly: Optional[int] = None

    def _broadcast_shape(self, shapes: Sequence[tuple]) -> tuple:
        where = f'{type(self).__name__} "{self.name}"'
        rank = max(len(s) for s in shapes)
        padded = [s[:1] + (1,) * (rank - len(s)) + s[1:] for s in shapes]
        out = []
        for axis in range(rank):
            sizes = {p[axis] for p in padded} - {1}
            known = sizes - {None}
            if len(known) > 1:
                what = 'batch sizes' if axis == 0 else 'shapes'
                raise ValueError(f'{where}: inputs have incompatible {what}; received shapes '
                                 f'{list(shapes)}')
            if known:
                out.append(known.pop())
            elif None in sizes:
                out.append(None)
            else:
                out.append(1)
        return tuple(out)

    def build(self, input_shape: Any) -> None:
        shapes = _as_list(self, input_shape, self._exactly)
        self._broadcast_shape([tuple(s) for s in shapes])
        self.built = True

    def call(self, inputs: Any) -> Any:
        xs = _as_list(self, inputs, self._exactly)
        shape = self._broadcast_shape([tuple(x.shape) for x in xs])
        expanded = []
        for x in xs:
            if x.ndim < len(shape):
                x = F.reshape(x, x.shape[:1] + (1,) * (len(shape) - x.ndim) + x.shape[1:])
            if tuple(x.shape) != shape:
                x = F.broadcast_to(x, shape)
            expanded.append(x)
        return self._merge(expanded)

    def _merge(self, xs: list) -> Any:
        return xs[0]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return self._broadcast_shape([tuple(s) for s in _as_list(self, input_shape)])


class Add(_Merge):
    """Sum of the inputs.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> x = np.ones((2, 3), np.float32)
        >>> keras.layers.Add()([x, 2 * x]).array
        array([[3., 3., 3.],
               [3., 3., 3.]], dtype=float32)
    """

    def _merge(self, xs: list) -> Any:
        y = xs[0]
        for x in xs[1:]:
            y = y + x
        return y


class Subtract(_Merge):
    """Difference of exactly two inputs: ``inputs[0] - inputs[1]``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Subtract()([np.full((1, 2), 5.0), np.ones((1, 2))]).array
        array([[4., 4.]], dtype=float32)
    """
    _exactly = 2

    def _merge(self, xs: list) -> Any:
        return xs[0] - xs[1]


class Multiply(_Merge):
    """Element-wise product of the inputs.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Multiply()([np.full((1, 2), 3.0), np.full((1, 2), 2.0)]).array
        array([[6., 6.]], dtype=float32)
    """

    def _merge(self, xs: list) -> Any:
        y = xs[0]
        for x in xs[1:]:
            y = y * x
        return y


class Average(_Merge):
    """Element-wise mean of the inputs.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Average()([np.zeros((1, 2)), np.full((1, 2), 4.0)]).array
        array([[2., 2.]], dtype=float32)
    """

    def _merge(self, xs: list) -> Any:
        y = xs[0]
        for x in xs[1:]:
            y = y + x
        return y * (1.0 / len(xs))


class Maximum(_Merge):
    """Element-wise maximum of the inputs.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Maximum()([np.array([[1.0, 5.0]]), np.array([[3.0, 2.0]])]).array
        array([[3., 5.]], dtype=float32)
    """

    def _merge(self, xs: list) -> Any:
        y = xs[0]
        for x in xs[1:]:
            y = F.maximum(y, x)
        return y


class Minimum(_Merge):
    """Element-wise minimum of the inputs.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Minimum()([np.array([[1.0, 5.0]]), np.array([[3.0, 2.0]])]).array
        array([[1., 2.]], dtype=float32)
    """

    def _merge(self, xs: list) -> Any:
        y = xs[0]
        for x in xs[1:]:
            y = F.minimum(y, x)
        return y


class Concatenate(Layer):
    """Concatenates a list of tensors along ``axis``; the other sizes must agree.

    Args:
        axis: Concatenation axis (``-1``: the features).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Concatenate()([np.zeros((2, 3)), np.ones((2, 4))]).shape
        (2, 7)
    """

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _output_shape(self, shapes: Sequence[tuple]) -> tuple:
        where = f'Concatenate "{self.name}"'
        rank = len(shapes[0])
        if any(len(s) != rank for s in shapes):
            raise ValueError(f'{where}: all inputs must have the same rank; received shapes '
                             f'{list(shapes)}')
        if not -rank <= self.axis < rank:
            raise ValueError(f'{where}: axis {self.axis} is out of range for inputs of rank '
                             f'{rank}')
        axis = self.axis % rank
        out = []
        for i in range(rank):
            sizes = [s[i] for s in shapes]
            if i == axis:
                out.append(None if None in sizes else sum(sizes))
                continue
            known = {d for d in sizes if d is not None}
            if len(known) > 1:
                raise ValueError(f'{where}: a Concatenate layer requires inputs with matching '
                                 f'shapes except for the concatenation axis {self.axis}; '
                                 f'received shapes {list(shapes)}')
            out.append(known.pop() if known else None)
        return tuple(out)

    def build(self, input_shape: Any) -> None:
        self._output_shape([tuple(s) for s in _as_list(self, input_shape)])
        self.built = True

    def call(self, inputs: Any) -> Any:
        xs = _as_list(self, inputs)
        self._output_shape([tuple(x.shape) for x in xs])
        return F.concat(xs, axis=self.axis % xs[0].ndim)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return self._output_shape([tuple(s) for s in _as_list(self, input_shape)])

    def get_config(self) -> dict:
        config = super().get_config()
        config['axis'] = self.axis
        return config


class Dot(Layer):
    """Dot product of two tensors along ``axes``, per sample (a batched dot).

    Args:
        axes: An int (the same axis of both inputs) or a pair ``(axis_of_x, axis_of_y)``; axis 0
            (the batch) is not allowed.
        normalize: L2-normalize both inputs along ``axes`` first (the result is the cosine
            similarity).

    Shape:
        ``x`` of shape ``(batch, *xs)`` and ``y`` ``(batch, *ys)`` give ``(batch, *xs', *ys')``
        without the contracted axes; two ``(batch, n)`` inputs give ``(batch, 1)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> x = np.array([[1.0, 2.0]]); y = np.array([[3.0, 4.0]])
        >>> keras.layers.Dot(axes=1)([x, y]).array
        array([[11.]], dtype=float32)
    """

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axes, int):
            self.axes = axes
        else:
            axes = tuple(axes)
            if len(axes) != 2 or not all(isinstance(a, int) for a in axes):
                raise ValueError(f'Dot "{self.name}": argument axes: expected an int or a pair '
                                 f'of ints, got {axes!r}')
            self.axes = axes
        self.normalize = bool(normalize)

    def _resolve(self, shapes: Sequence[tuple]) -> tuple:
        where = f'Dot "{self.name}"'
        s1, s2 = shapes
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else self.axes
        axes = []
        for a, s in zip(pair, (s1, s2)):
            if not -len(s) <= a < len(s) or a % len(s) == 0:
                raise ValueError(f'{where}: axis {a} is not a non-batch axis of an input of '
                                 f'shape {s}')
            axes.append(a % len(s))
        a1, a2 = axes
        if s1[a1] is not None and s2[a2] is not None and s1[a1] != s2[a2]:
            raise ValueError(f'{where}: incompatible input shapes: axis values {s1[a1]} (axis '
                             f'{a1} of {s1}) != {s2[a2]} (axis {a2} of {s2})')
        if s1[0] is not None and s2[0] is not None and s1[0] != s2[0]:
            raise ValueError(f'{where}: inputs have different batch sizes: {s1} and {s2}')
        out = s1[:a1] + s1[a1 + 1:] + s2[1:a2] + s2[a2 + 1:]
        if len(out) == 1:
            out = out + (1,)
        return a1, a2, out

    def build(self, input_shape: Any) -> None:
        self._resolve([tuple(s) for s in _as_list(self, input_shape, 2)])
        self.built = True

    def call(self, inputs: Any) -> Any:
        x, y = _as_list(self, inputs, 2)
        a1, a2, out = self._resolve([tuple(x.shape), tuple(y.shape)])
        if self.normalize:
            x, y = _l2_normalize(x, a1), _l2_normalize(y, a2)
        batch, k = x.shape[0], x.shape[a1]
        xt = F.reshape(F.moveaxis(x, a1, -1), (batch, -1, k))
        yt = F.reshape(F.moveaxis(y, a2, 1), (batch, k, -1))
        return F.reshape(F.matmul(xt, yt), out)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return self._resolve([tuple(s) for s in _as_list(self, input_shape, 2)])[2]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(axes=self.axes, normalize=self.normalize)
        return config


def _l2_normalize(x: Any, axis: int, epsilon: float = 1e-12) -> Any:
    sumsq = F.sum(F.square(x), axis=axis, keepdims=True)
    floor = x.xp.full(sumsq.shape, epsilon, x.dtype)
    return x * F.broadcast_to(F.rsqrt(F.maximum(sumsq, floor)), x.shape)


def add(inputs: list, **kwargs: Any) -> Any:
    """Functional form of :class:`Add`."""
    return Add(**kwargs)(inputs)


def subtract(inputs: list, **kwargs: Any) -> Any:
    """Functional form of :class:`Subtract`."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs: list, **kwargs: Any) -> Any:
    """Functional form of :class:`Multiply`."""
    return Multiply(**kwargs)(inputs)


def average(inputs: list, **kwargs: Any) -> Any:
    """Functional form of :class:`Average`."""
    return Average(**kwargs)(inputs)


def maximum(inputs: list, **kwargs: Any) -> Any:
    """Functional form of :class:`Maximum`."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs: list, **kwargs: Any) -> Any:
    """Functional form of :class:`Minimum`."""
    return Minimum(**kwargs)(inputs)


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """Functional form of :class:`Concatenate`.

    Example:
        >>> from chainlet import keras
        >>> a, b = keras.Input(shape=(3,)), keras.Input(shape=(4,))
        >>> keras.layers.concatenate([a, b]).shape
        (None, 7)
    """
    return Concatenate(axis=axis, **kwargs)(inputs)


def dot(inputs: list, axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    """Functional form of :class:`Dot`."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
