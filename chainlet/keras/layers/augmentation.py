"""Image preprocessing and augmentation layers: ``Resizing``, ``CenterCrop``, ``RandomCrop``,
``RandomFlip``, ``RandomRotation``, ``RandomTranslation``, ``RandomZoom``, ``RandomContrast``.

Design: images are ``(batch, height, width, channels)`` (``channels_last``, Keras's default)
or one unbatched ``(height, width, channels)`` image. The random layers change their input only
in training (``training=True``, which ``fit`` passes), as in Keras 3, and draw one set of
parameters per image from a private NumPy generator (``seed``) or NumPy's global state. The
geometric ones build Keras's 8-number projective transform per image and sample with
:func:`keras.ops.image.affine_transform`; everything is written with chainlet functions, so the
layers are differentiable in the images.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> flip = keras.layers.RandomFlip('horizontal', seed=0)
    >>> x = np.arange(4, dtype=np.float32).reshape(1, 1, 4, 1)
    >>> flip(x).array.ravel()                  # inference: unchanged
    array([0., 1., 2., 3.], dtype=float32)
    >>> keras.layers.CenterCrop(1, 2)(x).array.ravel()
    array([1., 2.], dtype=float32)
"""
from __future__ import annotations

import math
import numbers
from typing import Any, Callable, Optional

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.ops import image as image_ops

__all__ = ['CenterCrop', 'RandomContrast', 'RandomCrop', 'RandomFlip', 'RandomRotation',
           'RandomTranslation', 'RandomZoom', 'Resizing']


def _as_variable(x: Any) -> Any:
    return x if isinstance(x, Variable) else Variable(numpy.asarray(x, dtype='float32'))


def _cfg(value: Any) -> Any:
    """A factor for a config: pairs as lists (their JSON form)."""
    return list(value) if isinstance(value, tuple) else value


def _range(layer: str, name: str, factor: Any, symmetric: bool = True) -> tuple[float, float]:
    """``factor`` as ``(lower, upper)``: a number ``f`` is ``(-f, f)`` (``symmetric``)."""
    if isinstance(factor, numbers.Real) and not isinstance(factor, bool):
        low, high = (-float(factor), float(factor)) if symmetric else (0.0, float(factor))
    else:
        try:
            low, high = (float(v) for v in factor)
        except (TypeError, ValueError):
            raise ValueError(f'{layer}: argument {name}: expected a number or a pair of '
                             f'numbers, got {factor!r}') from None
    if low > high:
        raise ValueError(f'{layer}: argument {name}: lower bound {low} exceeds upper bound '
                         f'{high}')
    return low, high


class _ImageLayer(Layer):
    """Batching of unbatched images and the ``channels_last`` check."""

    def __init__(self, data_format: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or 'channels_last'
        if self.data_format != 'channels_last':
            raise ValueError(f'{type(self).__name__}: only data_format="channels_last" is '
                             f'supported, got {data_format!r}')

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        x = _as_variable(inputs)
        if x.dtype.kind != 'f':
            x = F.cast(x, self._dtype)
        if x.ndim not in (3, 4):
            raise ValueError(f'{type(self).__name__} "{self.name}": expected images of rank 3 '
                             f'or 4 (channels last), got shape {tuple(x.shape)}')
        single = x.ndim == 3
        if single:
            x = F.expand_dims(x, 0)
        y = self._transform(x, bool(training))
        return y[0] if single else y

    def _transform(self, x: Any, training: bool) -> Any:
        return x

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(data_format=self.data_format)
        return config


class _RandomLayer(_ImageLayer):
    def __init__(self, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self._rng = numpy.random.default_rng(seed) if seed is not None else numpy.random

    def _uniform(self, low: float, high: float, n: int) -> numpy.ndarray:
        return self._rng.uniform(low, high, size=n)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(seed=self.seed)
        return config


def _crop(x: Any, top: int, left: int, height: int, width: int) -> Any:
    return x[:, top:top + height, left:left + width, :]


def _resize_crop(x: Any, height: int, width: int, interpolation: str) -> Any:
    """The largest centred window of the target aspect ratio, resized to the target."""
    h, w = x.shape[1:3]
    crop_h = min(h, int(round(w * height / width)))
    crop_w = min(w, int(round(h * width / height)))
    x = _crop(x, (h - crop_h) // 2, (w - crop_w) // 2, crop_h, crop_w)
    if (crop_h, crop_w) != (height, width):
        x = image_ops.resize(x, (height, width), interpolation=interpolation)
    return x


class Resizing(_ImageLayer):
    """Resize images to ``(height, width)``.

    Args:
        height, width: The output size.
        interpolation: ``'bilinear'`` (default) or ``'nearest'``.
        crop_to_aspect_ratio: Crop the largest centred window of the target aspect ratio first,
            so that the image is not distorted.
    """

    def __init__(self, height: int, width: int, interpolation: str = 'bilinear',
                 crop_to_aspect_ratio: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)

    def _transform(self, x: Any, training: bool) -> Any:
        if self.crop_to_aspect_ratio:
            return _resize_crop(x, self.height, self.width, self.interpolation)
        return image_ops.resize(x, (self.height, self.width), interpolation=self.interpolation)

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        return shape[:-3] + (self.height, self.width, shape[-1])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height=self.height, width=self.width, interpolation=self.interpolation,
                      crop_to_aspect_ratio=self.crop_to_aspect_ratio)
        return config


class CenterCrop(_ImageLayer):
    """Crop the central ``(height, width)`` window; a smaller image is first resized (keeping
    its aspect ratio) so that the window fits, as in Keras.

    Args:
        height, width: The output size.
    """

    def __init__(self, height: int, width: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.height, self.width = int(height), int(width)

    def _transform(self, x: Any, training: bool) -> Any:
        h, w = x.shape[1:3]
        if h >= self.height and w >= self.width:
            return _crop(x, (h - self.height) // 2, (w - self.width) // 2, self.height,
                         self.width)
        return _resize_crop(x, self.height, self.width, 'bilinear')

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        return shape[:-3] + (self.height, self.width, shape[-1])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height=self.height, width=self.width)
        return config


class RandomCrop(_RandomLayer):
    """In training, crop a random ``(height, width)`` window (one per batch); otherwise, and
    for images smaller than the window, the centred window of that aspect ratio resized to it.

    Args:
        height, width: The output size.
        seed: Seed of a private random generator.
    """

    def __init__(self, height: int, width: int, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.height, self.width = int(height), int(width)

    def _transform(self, x: Any, training: bool) -> Any:
        h, w = x.shape[1:3]
        if training and h >= self.height and w >= self.width:
            top = int(self._uniform(0, h - self.height + 1, 1)[0])
            left = int(self._uniform(0, w - self.width + 1, 1)[0])
            return _crop(x, top, left, self.height, self.width)
        return _resize_crop(x, self.height, self.width, 'bilinear')

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = tuple(input_shape)
        return shape[:-3] + (self.height, self.width, shape[-1])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height=self.height, width=self.width)
        return config


class RandomFlip(_RandomLayer):
    """In training, flip each image with probability 1/2 (each direction independently).

    Args:
        mode: ``'horizontal'``, ``'vertical'`` or ``'horizontal_and_vertical'`` (default).
        seed: Seed of a private random generator.
    """

    def __init__(self, mode: str = 'horizontal_and_vertical', seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        if mode not in ('horizontal', 'vertical', 'horizontal_and_vertical'):
            raise ValueError(f"RandomFlip: argument mode: expected 'horizontal', 'vertical' or "
                             f"'horizontal_and_vertical', got {mode!r}")
        self.mode = mode

    def _transform(self, x: Any, training: bool) -> Any:
        if not training:
            return x
        n = x.shape[0]
        axes = {'horizontal': (2,), 'vertical': (1,),
                'horizontal_and_vertical': (2, 1)}[self.mode]
        for axis in axes:
            pick = (self._uniform(0.0, 1.0, n) < 0.5).astype(x.dtype).reshape(n, 1, 1, 1)
            pick = x.xp.asarray(pick)
            flipped = F.flip(x, axis)
            x = x * (1 - pick) + flipped * pick
        return x

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(mode=self.mode)
        return config


class _AffineLayer(_RandomLayer):
    # Each subclass defines it: the (n, 8) projective transforms of n images of h x w pixels.
    _transforms: Callable[[int, int, int], numpy.ndarray]

    def __init__(self, fill_mode: str = 'reflect', interpolation: str = 'bilinear',
                 seed: Optional[int] = None, fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        if fill_mode not in ('reflect', 'wrap', 'constant', 'nearest'):
            raise ValueError(f"{type(self).__name__}: argument fill_mode: expected 'reflect', "
                             f"'wrap', 'constant' or 'nearest', got {fill_mode!r}")
        if interpolation not in ('bilinear', 'nearest'):
            raise ValueError(f"{type(self).__name__}: argument interpolation: expected "
                             f"'bilinear' or 'nearest', got {interpolation!r}")
        self.fill_mode = fill_mode
        self.interpolation = interpolation
        self.fill_value = float(fill_value)

    def _transform(self, x: Any, training: bool) -> Any:
        if not training:
            return x
        n, h, w = x.shape[:3]
        matrices = self._transforms(n, h, w)
        transforms = Variable(x.xp.asarray(matrices.astype('float32')), requires_grad=False)
        return image_ops.affine_transform(x, transforms,
                                          interpolation=self.interpolation,
                                          fill_mode=self.fill_mode,
                                          fill_value=self.fill_value)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(fill_mode=self.fill_mode, interpolation=self.interpolation,
                      fill_value=self.fill_value)
        return config


class RandomRotation(_AffineLayer):
    """In training, rotate each image by a random angle of ``factor * 2 pi`` radians.

    Args:
        factor: A number ``f`` (angles in ``[-f, f] * 2 pi``) or a pair ``(lower, upper)``.
        fill_mode: ``'reflect'`` (default), ``'wrap'``, ``'constant'`` or ``'nearest'``.
        interpolation: ``'bilinear'`` (default) or ``'nearest'``.
        seed: Seed of a private random generator.
        fill_value: The value outside the image with ``fill_mode='constant'``.
    """

    def __init__(self, factor: Any, fill_mode: str = 'reflect',
                 interpolation: str = 'bilinear', seed: Optional[int] = None,
                 fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.factor = factor
        self._low, self._high = _range('RandomRotation', 'factor', factor)

    def _transforms(self, n: int, h: int, w: int) -> numpy.ndarray:
        angles = self._uniform(self._low, self._high, n) * 2 * math.pi
        cos, sin = numpy.cos(angles), numpy.sin(angles)
        # Output pixel -> input point: a rotation about the image centre.
        x_off = ((w - 1) - (cos * (w - 1) - sin * (h - 1))) / 2
        y_off = ((h - 1) - (sin * (w - 1) + cos * (h - 1))) / 2
        zeros = numpy.zeros(n)
        return numpy.stack([cos, -sin, x_off, sin, cos, y_off, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(factor=_cfg(self.factor))
        return config


class RandomTranslation(_AffineLayer):
    """In training, shift each image by random fractions of its height and width.

    Args:
        height_factor, width_factor: A number ``f`` (shifts in ``[-f, f]`` of the size) or a
            pair ``(lower, upper)``.
        fill_mode, interpolation, seed, fill_value: As :class:`RandomRotation`.
    """

    def __init__(self, height_factor: Any, width_factor: Any, fill_mode: str = 'reflect',
                 interpolation: str = 'bilinear', seed: Optional[int] = None,
                 fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = _range('RandomTranslation', 'height_factor', height_factor)
        self._w = _range('RandomTranslation', 'width_factor', width_factor)

    def _transforms(self, n: int, h: int, w: int) -> numpy.ndarray:
        dy = self._uniform(*self._h, n) * h
        dx = self._uniform(*self._w, n) * w
        ones, zeros = numpy.ones(n), numpy.zeros(n)
        return numpy.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height_factor=_cfg(self.height_factor),
                      width_factor=_cfg(self.width_factor))
        return config


class RandomZoom(_AffineLayer):
    """In training, zoom each image by a random factor: ``1 + u`` with ``u`` drawn from
    ``height_factor`` (positive: zoom out, negative: zoom in, as in Keras).

    Args:
        height_factor: A number ``f`` (``u`` in ``[-f, f]``) or a pair ``(lower, upper)``.
        width_factor: The same for the width; ``None`` keeps the aspect ratio.
        fill_mode, interpolation, seed, fill_value: As :class:`RandomRotation`.
    """

    def __init__(self, height_factor: Any, width_factor: Any = None,
                 fill_mode: str = 'reflect', interpolation: str = 'bilinear',
                 seed: Optional[int] = None, fill_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(fill_mode, interpolation, seed, fill_value, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._h = _range('RandomZoom', 'height_factor', height_factor)
        self._w = None if width_factor is None else _range('RandomZoom', 'width_factor',
                                                           width_factor)
        for low, _ in (self._h, self._w or (0, 0)):
            if low <= -1:
                raise ValueError(f'RandomZoom: zoom factors must be > -1, got {low}')

    def _transforms(self, n: int, h: int, w: int) -> numpy.ndarray:
        zy = 1.0 + self._uniform(*self._h, n)
        zx = zy if self._w is None else 1.0 + self._uniform(*self._w, n)
        x_off = (w - 1) / 2.0 * (1.0 - zx)
        y_off = (h - 1) / 2.0 * (1.0 - zy)
        zeros = numpy.zeros(n)
        return numpy.stack([zx, zeros, x_off, zeros, zy, y_off, zeros, zeros], axis=1)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(height_factor=_cfg(self.height_factor),
                      width_factor=_cfg(self.width_factor))
        return config


class RandomContrast(_RandomLayer):
    """In training, scale each image's deviation from its per-channel mean by a random factor
    in ``[1 - lower, 1 + upper]``, then clip to ``value_range``.

    Args:
        factor: A number ``f`` (factors in ``[1 - f, 1 + f]``) or a pair ``(lower, upper)``.
        value_range: The range the output is clipped to (``(0, 255)``, as in Keras).
        seed: Seed of a private random generator.
    """

    def __init__(self, factor: Any, value_range: Any = (0, 255), seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(seed=seed, **kwargs)
        self.factor = factor
        if isinstance(factor, numbers.Real) and not isinstance(factor, bool):
            self._low, self._high = float(factor), float(factor)
        else:
            self._low, self._high = (float(v) for v in factor)
        if not 0 <= self._low <= 1 or self._high < 0:
            raise ValueError(f'RandomContrast: argument factor: expected values in [0, 1] for '
                             f'the lower bound and >= 0 for the upper, got {factor!r}')
        self.value_range = tuple(float(v) for v in value_range)

    def _transform(self, x: Any, training: bool) -> Any:
        if not training:
            return x
        n = x.shape[0]
        f = self._uniform(1.0 - self._low, 1.0 + self._high, n).astype(x.dtype)
        f = x.xp.asarray(f.reshape(n, 1, 1, 1))
        mean = F.broadcast_to(F.mean(x, axis=(1, 2), keepdims=True), x.shape)
        y = (x - mean) * f + mean
        return F.clip(y, self.value_range[0], self.value_range[1])

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(factor=_cfg(self.factor), value_range=list(self.value_range))
        return config
