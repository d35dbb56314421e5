"""Activation layers: ``ReLU``, ``LeakyReLU``, ``ELU``, ``Softmax``, ``PReLU``; and ``Rescaling``.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> keras.layers.ReLU(max_value=1.0)(np.array([[-1.0, 0.5, 3.0]], np.float32)).array
    array([[0. , 0.5, 1. ]], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import chainlet.functions as F
from chainlet.keras import initializers, regularizers
from chainlet.keras.engine.base_layer import Layer


def _check_non_negative(layer: str, name: str, value: Optional[float]) -> None:
    if value is not None and value < 0:
        raise ValueError(f'{layer}: argument {name}: expected a value >= 0, got {value}')


class ReLU(Layer):
    """``max(x, 0)``, optionally with a ``max_value`` cap, a slope ``negative_slope`` below
    ``threshold``, as Keras defines it.

    Args:
        max_value: Upper bound of the output (``None``: none).
        negative_slope: Slope for ``x < threshold``.
        threshold: Values below it are scaled by ``negative_slope`` (0 by default).
    """

    def __init__(self, max_value: Optional[float] = None, negative_slope: float = 0.0,
                 threshold: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _check_non_negative('ReLU', 'max_value', max_value)
        _check_non_negative('ReLU', 'negative_slope', negative_slope)
        self.max_value = max_value
        self.negative_slope = float(negative_slope)
        self.threshold = float(threshold)

    def call(self, inputs: Any) -> Any:
        x = inputs
        if self.negative_slope == 0 and self.threshold == 0:
            y = F.relu(x)
        else:
            shifted = x - self.threshold
            y = F.where(shifted.array >= 0, x, shifted * self.negative_slope)
        if self.max_value is not None:
            y = F.minimum(y, F.broadcast_to(y.xp.asarray(self.max_value, y.dtype), y.shape))
        return y

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(max_value=self.max_value, negative_slope=self.negative_slope,
                      threshold=self.threshold)
        return config


class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, ``negative_slope * x`` otherwise (Keras 3 default slope 0.3).

    ``alpha=`` (the Keras 2 name) is accepted too.
    """

    def __init__(self, negative_slope: float = 0.3, **kwargs: Any) -> None:
        alpha = kwargs.pop('alpha', None)
        super().__init__(**kwargs)
        self.negative_slope = float(negative_slope if alpha is None else alpha)
        _check_non_negative('LeakyReLU', 'negative_slope', self.negative_slope)

    def call(self, inputs: Any) -> Any:
        return F.leaky_relu(inputs, self.negative_slope)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config['negative_slope'] = self.negative_slope
        return config


class ELU(Layer):
    """``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise."""

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs: Any) -> Any:
        return F.elu(inputs, self.alpha)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config['alpha'] = self.alpha
        return config


class Softmax(Layer):
    """Softmax over ``axis`` (the last by default)."""

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        return F.softmax(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config['axis'] = self.axis
        return config


class PReLU(Layer):
    """Leaky ReLU whose slope ``alpha`` is learned, one per feature (shared along
    ``shared_axes``)."""

    def __init__(self, alpha_initializer: Any = 'zeros', alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Optional[Sequence[int]] = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = alpha_constraint
        if shared_axes is None:
            self.shared_axes: Optional[list[int]] = None
        elif isinstance(shared_axes, int):
            self.shared_axes = [shared_axes]
        else:
            self.shared_axes = list(shared_axes)

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape[1:])
        for axis in self.shared_axes or ():
            if not 1 <= axis < len(input_shape):
                raise ValueError(f'PReLU "{self.name}": argument shared_axes: expected axes in '
                                 f'[1, {len(input_shape)}), got {axis}')
            shape[axis - 1] = 1
        if any(s is None for s in shape):
            raise ValueError(f'PReLU "{self.name}": the input shape {input_shape} has unknown '
                             f'non-batch sizes; share those axes with shared_axes=')
        self.alpha = self.add_weight('alpha', tuple(shape), initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        self.built = True

    def call(self, inputs: Any) -> Any:
        alpha = F.broadcast_to(self.alpha, inputs.shape)
        positive = F.relu(inputs)
        return positive - alpha * F.relu(-inputs)

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(alpha_initializer=initializers.serialize(self.alpha_initializer),
                      alpha_regularizer=regularizers.serialize(self.alpha_regularizer),
                      shared_axes=self.shared_axes)
        return config


class Rescaling(Layer):
    """``inputs * scale + offset`` (e.g. ``Rescaling(1 / 255)`` for images)."""

    def __init__(self, scale: float, offset: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scale = float(scale)
        self.offset = float(offset)

    def call(self, inputs: Any) -> Any:
        return inputs * self.scale + self.offset

    def compute_output_shape(self, input_shape: Any) -> Any:
        return input_shape

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(scale=self.scale, offset=self.offset)
        return config
