"""Spatial reshaping layers: ``UpSampling1D/2D``, ``ZeroPadding1D/2D``, ``Cropping1D/2D``."""
from __future__ import annotations

import math
from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.layers._utils import normalize_data_format, normalize_tuple


def _bilinear_matrix(length: int, scale: int) -> numpy.ndarray:
    """``(length * scale, length)`` interpolation weights with half-pixel centres, as
    ``tf.image.resize(..., 'bilinear')`` (sample points outside the input are clamped)."""
    out = length * scale
    matrix = numpy.zeros((out, length))
    for i in range(out):
        src = (i + 0.5) / scale - 0.5
        lo = math.floor(src)
        frac = src - lo
        matrix[i, min(max(lo, 0), length - 1)] += 1 - frac
        matrix[i, min(max(lo + 1, 0), length - 1)] += frac
    return matrix


class UpSampling1D(Layer):
    """Repeats each time step ``size`` times: ``(batch, steps, features)`` ->
    ``(batch, steps * size, features)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.UpSampling1D(2)(np.array([[[1.0], [2.0]]], np.float32)).array[0, :, 0]
        array([1., 1., 2., 2.], dtype=float32)
    """

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, 1, 'size', f'UpSampling1D "{self.name}"')[0]
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        return F.repeat(inputs, self.size, axis=1)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        steps = None if input_shape[1] is None else input_shape[1] * self.size
        return (input_shape[0], steps, input_shape[2])

    def get_config(self) -> dict:
        config = super().get_config()
        config['size'] = self.size
        return config


class UpSampling2D(Layer):
    """Upsamples rows and columns by ``size``.

    Args:
        size: Int or pair ``(rows, cols)`` of upsampling factors.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.
        interpolation: ``'nearest'`` (repeat) or ``'bilinear'`` (half-pixel centres, as
            Keras).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> x = np.arange(4, dtype=np.float32).reshape(1, 2, 2, 1)
        >>> keras.layers.UpSampling2D()(x).array[0, :, :, 0]
        array([[0., 0., 1., 1.],
               [0., 0., 1., 1.],
               [2., 2., 3., 3.],
               [2., 2., 3., 3.]], dtype=float32)
    """

    def __init__(self, size: Any = (2, 2), data_format: Optional[str] = None,
                 interpolation: str = 'nearest', **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = f'UpSampling2D "{self.name}"'
        self.size = normalize_tuple(size, 2, 'size', where)
        self.data_format = normalize_data_format(data_format, where)
        if interpolation not in ('nearest', 'bilinear'):
            raise ValueError(f"{where}: argument interpolation: expected 'nearest' or "
                             f"'bilinear', got {interpolation!r}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    @property
    def _axes(self) -> tuple:
        return (1, 2) if self.data_format == 'channels_last' else (2, 3)

    def call(self, inputs: Any) -> Any:
        y = inputs
        for axis, s in zip(self._axes, self.size):
            if s == 1:
                continue
            if self.interpolation == 'nearest':
                y = F.repeat(y, s, axis=axis)
            else:
                matrix = y.xp.asarray(_bilinear_matrix(y.shape[axis], s).astype(y.dtype))
                # Contract the axis with the matrix, then move the new axis back in place.
                y = F.moveaxis(F.tensordot(y, matrix, axes=([axis], [1])), -1, axis)
        return y

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        for axis, s in zip(self._axes, self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * s
        return tuple(shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format,
                      interpolation=self.interpolation)
        return config


def _pairs(value: Any, rank: int, arg: str, where: str) -> tuple:
    """An int, ``rank`` ints (symmetric) or ``rank`` pairs -> ``rank`` pairs."""
    if isinstance(value, (int, numpy.integer)) and not isinstance(value, bool):
        return ((int(value), int(value)),) * rank
    value = tuple(value)
    if rank == 1 and len(value) == 2 and all(isinstance(v, (int, numpy.integer)) for v in value):
        pairs: tuple[tuple[int, ...], ...] = (tuple(int(v) for v in value),)
    elif len(value) == rank and all(isinstance(v, (int, numpy.integer)) for v in value):
        pairs = tuple((int(v), int(v)) for v in value)
    elif len(value) == rank:
        pairs = tuple(tuple(int(v) for v in pair) for pair in value)
    else:
        raise ValueError(f'{where}: argument {arg}: expected an int, {rank} ints or {rank} '
                         f'pairs of ints, got {value!r}')
    if any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise ValueError(f'{where}: argument {arg}: expected non-negative (before, after) '
                         f'pairs, got {value!r}')
    return pairs


class _Spatial(Layer):
    rank = 2
    _arg = 'padding'

    def __init__(self, amount: Any, data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = f'{type(self).__name__} "{self.name}"'
        self.data_format = normalize_data_format(data_format, where)
        setattr(self, self._arg, _pairs(amount, self.rank, self._arg, where))
        self.input_spec = InputSpec(ndim=self.rank + 2)

    @property
    def _axes(self) -> tuple:
        if self.rank == 1 or self.data_format == 'channels_last':
            return tuple(range(1, self.rank + 1))
        return tuple(range(2, self.rank + 2))

    def get_config(self) -> dict:
        config = super().get_config()
        config[self._arg] = getattr(self, self._arg)
        if self.rank > 1:
            config['data_format'] = self.data_format
        return config


class ZeroPadding1D(_Spatial):
    """Pads the time axis with zeros: ``padding`` is an int or a pair ``(left, right)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.ZeroPadding1D((1, 2))(np.ones((1, 3, 2), np.float32)).shape
        (1, 6, 2)
    """
    rank = 1
    padding: tuple[tuple[int, int], ...]  # set by _Spatial.__init__ (setattr of _arg)

    def __init__(self, padding: Any = 1, **kwargs: Any) -> None:
        super().__init__(padding, **kwargs)

    def call(self, inputs: Any) -> Any:
        return F.pad(inputs, ((0, 0), self.padding[0], (0, 0)))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        n = input_shape[1]
        return (input_shape[0], None if n is None else n + sum(self.padding[0]),
                input_shape[2])

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop('data_format', None)
        return config


class ZeroPadding2D(_Spatial):
    """Pads rows and columns with zeros.

    Args:
        padding: An int (all sides), a pair ``(rows, cols)`` (symmetric), or
            ``((top, bottom), (left, right))``.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.ZeroPadding2D(((1, 0), (2, 1)))(np.ones((1, 3, 3, 2))).shape
        (1, 4, 6, 2)
    """
    padding: tuple[tuple[int, int], ...]  # set by _Spatial.__init__ (setattr of _arg)

    def __init__(self, padding: Any = (1, 1), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(padding, data_format, **kwargs)

    def call(self, inputs: Any) -> Any:
        width = [(0, 0)] * inputs.ndim
        for axis, pair in zip(self._axes, self.padding):
            width[axis] = pair
        return F.pad(inputs, tuple(width))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        for axis, pair in zip(self._axes, self.padding):
            shape[axis] = None if shape[axis] is None else shape[axis] + sum(pair)
        return tuple(shape)


class Cropping1D(_Spatial):
    """Crops the time axis: ``cropping`` is an int or a pair ``(start, end)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Cropping1D((1, 2))(np.ones((1, 6, 2), np.float32)).shape
        (1, 3, 2)
    """
    rank = 1
    _arg = 'cropping'
    cropping: tuple[tuple[int, int], ...]  # set by _Spatial.__init__ (setattr of _arg)

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(cropping, **kwargs)

    def call(self, inputs: Any) -> Any:
        start, end = self.cropping[0]
        return inputs[:, start:inputs.shape[1] - end]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        n = input_shape[1]
        return (input_shape[0], None if n is None else n - sum(self.cropping[0]),
                input_shape[2])

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop('data_format', None)
        return config


class Cropping2D(_Spatial):
    """Crops rows and columns.

    Args:
        cropping: An int (all sides), a pair ``(rows, cols)`` (symmetric), or
            ``((top, bottom), (left, right))``.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Cropping2D(((1, 0), (2, 1)))(np.ones((1, 5, 5, 2))).shape
        (1, 4, 2, 2)
    """
    _arg = 'cropping'
    cropping: tuple[tuple[int, int], ...]  # set by _Spatial.__init__ (setattr of _arg)

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(cropping, data_format, **kwargs)

    def call(self, inputs: Any) -> Any:
        index = [slice(None)] * inputs.ndim
        for axis, (start, end) in zip(self._axes, self.cropping):
            if start + end >= inputs.shape[axis]:
                raise ValueError(f'{type(self).__name__} "{self.name}": cropping {self.cropping} '
                                 f'removes '
                                 f'every element of axis {axis} of input shape {inputs.shape}')
            index[axis] = slice(start, inputs.shape[axis] - end)
        return inputs[tuple(index)]

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        for axis, pair in zip(self._axes, self.cropping):
            shape[axis] = None if shape[axis] is None else shape[axis] - sum(pair)
        return tuple(shape)


class ZeroPadding3D(ZeroPadding2D):
    """Pads the three spatial axes with zeros.

    Args:
        padding: An int (all sides), three ints (symmetric per axis), or three pairs.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.ZeroPadding3D((1, 0, 2))(np.ones((1, 2, 2, 2, 1))).shape
        (1, 4, 2, 6, 1)
    """
    rank = 3

    def __init__(self, padding: Any = ((1, 1), (1, 1), (1, 1)),
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(padding, data_format, **kwargs)


class Cropping3D(Cropping2D):
    """Crops the three spatial axes.

    Args:
        cropping: An int (all sides), three ints (symmetric per axis), or three pairs.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.Cropping3D(((1, 0), (0, 0), (1, 1)))(np.ones((1, 3, 3, 4, 2))).shape
        (1, 2, 3, 2, 2)
    """
    rank = 3

    def __init__(self, cropping: Any = ((1, 1), (1, 1), (1, 1)),
                 data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(cropping, data_format, **kwargs)


class UpSampling3D(Layer):
    """Repeats the three spatial axes ``size`` times (nearest neighbour).

    Args:
        size: Int or three ints.
        data_format: ``'channels_last'`` (default) or ``'channels_first'``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.UpSampling3D((1, 2, 3))(np.ones((1, 2, 2, 2, 1))).shape
        (1, 2, 4, 6, 1)
    """

    def __init__(self, size: Any = (2, 2, 2), data_format: Optional[str] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        where = f'UpSampling3D "{self.name}"'
        self.size = normalize_tuple(size, 3, 'size', where)
        self.data_format = normalize_data_format(data_format, where)
        self.input_spec = InputSpec(ndim=5)

    @property
    def _axes(self) -> tuple:
        return (1, 2, 3) if self.data_format == 'channels_last' else (2, 3, 4)

    def call(self, inputs: Any) -> Any:
        y = inputs
        for axis, s in zip(self._axes, self.size):
            if s != 1:
                y = F.repeat(y, s, axis=axis)
        return y

    def compute_output_shape(self, input_shape: Any) -> tuple:
        shape = list(input_shape)
        for axis, s in zip(self._axes, self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * s
        return tuple(shape)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(size=self.size, data_format=self.data_format)
        return config
