"""Noise and regularization layers: ``GaussianNoise``, ``GaussianDropout``,
``SpatialDropout1D/2D/3D``, ``ActivityRegularization``, and the small ``Identity``,
``UnitNormalization`` and ``Masking`` layers.

Design: each is a few chainlet functions on the input, so gradients flow through it. The noise
layers act only in training (``training=True``, which ``fit`` passes) and are the identity
otherwise, as in Keras; their random draws come from a private NumPy generator when ``seed`` is
given and from NumPy's global state otherwise (as :class:`~chainlet.keras.layers.Dropout`).

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> layer = keras.layers.GaussianNoise(0.1, seed=0)
    >>> x = np.zeros((2, 3), np.float32)
    >>> bool((layer(x).array == 0).all()), bool((layer(x, training=True).array != 0).all())
    (True, True)
"""
from __future__ import annotations

from typing import Any, Optional, Union

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras import config
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.layers.core import Dropout

__all__ = ['ActivityRegularization', 'AlphaDropout', 'GaussianDropout', 'GaussianNoise',
           'Identity', 'Masking', 'SpatialDropout1D', 'SpatialDropout2D', 'SpatialDropout3D',
           'UnitNormalization']


def _check_rate(layer: str, rate: Any, upper_open: bool = True) -> float:
    ok = isinstance(rate, (int, float)) and not isinstance(rate, bool) and (
        0 <= rate < 1 if upper_open else rate >= 0)
    if not ok:
        bound = 'a float in [0, 1)' if upper_open else 'a float >= 0'
        raise ValueError(f'{layer}: argument rate/stddev: expected {bound}, got {rate!r}')
    return float(rate)


class _NoiseLayer(Layer):
    supports_masking = True

    def __init__(self, seed: Optional[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.seed = seed
        self._rng = numpy.random.default_rng(seed) if seed is not None else numpy.random

    def _noise(self, x: Any, kind: str, scale: float) -> Any:
        if kind == 'normal':
            draw = self._rng.standard_normal(x.shape) * scale
        else:
            draw = 1.0 + self._rng.standard_normal(x.shape) * scale
        return x.xp.asarray(draw.astype(x.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class GaussianNoise(_NoiseLayer):
    """Adds zero-mean Gaussian noise of standard deviation ``stddev`` in training.

    Args:
        stddev: Standard deviation of the noise.
        seed: Seed of a private random generator.
    """

    def __init__(self, stddev: float, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        self.stddev = _check_rate('GaussianNoise', stddev, upper_open=False)

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        if not training or self.stddev == 0:
            return inputs
        return inputs + self._noise(inputs, 'normal', self.stddev)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(stddev=self.stddev, seed=self.seed)
        return config


class GaussianDropout(_NoiseLayer):
    """Multiplies by Gaussian noise of mean 1 and standard deviation
    ``sqrt(rate / (1 - rate))`` in training.

    Args:
        rate: Drop probability of the equivalent dropout, in ``[0, 1)``.
        seed: Seed of a private random generator.
    """

    def __init__(self, rate: float, seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        self.rate = _check_rate('GaussianDropout', rate)

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        if not training or self.rate == 0:
            return inputs
        stddev = (self.rate / (1.0 - self.rate)) ** 0.5
        return inputs * self._noise(inputs, 'multiplicative', stddev)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rate=self.rate, seed=self.seed)
        return config


class AlphaDropout(_NoiseLayer):
    """Dropout that keeps the mean and variance of SELU activations (Klambauer et al., 2017):
    dropped units are set to SELU's negative saturation, then an affine map restores the
    statistics (Keras's formula). Identity outside training.

    Args:
        rate: Drop probability, in ``[0, 1)``.
        noise_shape: Shape of the keep mask, broadcast to the inputs (``None``: the inputs').
        seed: Seed of a private random generator.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> keras.layers.AlphaDropout(0.5)(np.ones((2, 3), np.float32)).shape
        (2, 3)
    """

    _ALPHA_P = -1.6732632423543772848170429916717 * 1.0507009873554804934193349852946

    def __init__(self, rate: float, noise_shape: Any = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        super().__init__(seed, **kwargs)
        self.rate = _check_rate('AlphaDropout', rate)
        self.noise_shape = None if noise_shape is None else tuple(noise_shape)

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        if not training or self.rate == 0:
            return inputs
        rate, alpha_p = self.rate, self._ALPHA_P
        shape = tuple(s if s is not None else d for s, d in
                      zip(self.noise_shape, inputs.shape)) if self.noise_shape else inputs.shape
        kept = numpy.broadcast_to(self._rng.random(shape) >= rate, inputs.shape)
        a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * rate
        xp = inputs.xp
        keep = xp.asarray(kept.astype(inputs.dtype))
        return inputs * (keep * a) + xp.asarray(((1 - kept) * alpha_p * a + b)
                                                .astype(inputs.dtype))

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return config


class _SpatialDropout(Dropout):
    _rank = 0

    def __init__(self, rate: float, data_format: Optional[str] = None,
                 seed: Optional[int] = None, **kwargs: Any) -> None:
        super().__init__(rate, seed=seed, **kwargs)
        self.data_format = data_format or config.image_data_format()
        if self.data_format not in ('channels_last', 'channels_first'):
            raise ValueError(f'{type(self).__name__}: argument data_format: expected '
                             f"'channels_last' or 'channels_first', got {data_format!r}")

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        if inputs.ndim != self._rank + 2:
            raise ValueError(f'{type(self).__name__} "{self.name}": expected inputs of rank '
                             f'{self._rank + 2}, got shape {tuple(inputs.shape)}')
        # One draw per sample and channel, shared over the spatial axes.
        n = inputs.shape[0]
        if self.data_format == 'channels_last':
            self.noise_shape = (n,) + (1,) * self._rank + (inputs.shape[-1],)
        else:
            self.noise_shape = (n, inputs.shape[1]) + (1,) * self._rank
        try:
            return super().call(inputs, training=training)
        finally:
            self.noise_shape = None

    def get_config(self) -> dict:
        config = super().get_config()
        config.pop('noise_shape', None)
        config.update(data_format=self.data_format)
        return config


class SpatialDropout1D(_SpatialDropout):
    """Drops whole feature channels of ``(batch, steps, channels)`` inputs in training."""

    _rank = 1

    def __init__(self, rate: float, seed: Optional[int] = None, **kwargs: Any) -> None:
        kwargs.pop('data_format', None)
        super().__init__(rate, seed=seed, **kwargs)


class SpatialDropout2D(_SpatialDropout):
    """Drops whole feature maps of ``(batch, rows, cols, channels)`` inputs in training."""

    _rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Drops whole feature volumes of rank-5 inputs in training."""

    _rank = 3


class ActivityRegularization(Layer):
    """The identity, adding ``l1 * sum(|x|) + l2 * sum(x ** 2)`` to the model's losses.

    Args:
        l1, l2: The penalty factors.
    """

    supports_masking = True

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.l1 = float(l1)
        self.l2 = float(l2)

    def call(self, inputs: Any) -> Any:
        penalty: Union[float, Variable] = 0.0
        if self.l1:
            penalty = penalty + self.l1 * F.sum(F.absolute(inputs))
        if self.l2:
            penalty = penalty + self.l2 * F.sum(F.square(inputs))
        if isinstance(penalty, Variable):
            self.add_loss(penalty)
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(l1=self.l1, l2=self.l2)
        return config


class Identity(Layer):
    """Returns its input unchanged (a placeholder layer)."""

    supports_masking = True

    def call(self, inputs: Any) -> Any:
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape


class UnitNormalization(Layer):
    """Scales each sample to unit L2 norm along ``axis``: ``x / sqrt(max(sum(x ** 2), eps))``.

    Args:
        axis: The axis (or axes) of the norm, ``-1`` by default.
    """

    supports_masking = True

    def __init__(self, axis: Any = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = tuple(axis) if isinstance(axis, (list, tuple)) else (int(axis),)

    def call(self, inputs: Any) -> Any:
        x = inputs
        squares = F.sum(F.square(x), axis=self.axis, keepdims=True)
        eps = x.xp.full(squares.shape, 1e-12, dtype=x.dtype)
        return x * F.broadcast_to(F.rsqrt(F.maximum(squares, eps)), x.shape)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(axis=list(self.axis) if len(self.axis) > 1 else self.axis[0])
        return config


class Masking(Layer):
    """Masks the time steps whose features all equal ``mask_value``: they are zeroed, and the
    output carries the mask ``any(inputs != mask_value, axis=-1)`` for mask consumers (RNNs).

    Args:
        mask_value: The padding value.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> out = keras.layers.Masking()(np.array([[[1.0], [0.0]]], np.float32))
        >>> out._keras_mask
        array([[ True, False]])
    """

    supports_masking = True

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = float(mask_value)

    def compute_mask(self, inputs: Any, previous_mask: Any = None) -> Any:
        x = inputs.array if isinstance(inputs, Variable) else inputs
        return (x != self.mask_value).any(axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = self.compute_mask(inputs)
        return inputs * inputs.xp.asarray(keep[..., None].astype(inputs.dtype))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(mask_value=self.mask_value)
        return config
