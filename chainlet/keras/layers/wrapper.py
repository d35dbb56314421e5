"""``keras.layers.Wrapper``: the base class of layers that wrap another layer.

A subclass implements ``call`` (usually calling ``self.layer``); the wrapper builds the inner
layer from its own input shape, and its config holds the inner layer's, so a subclass saves
and loads without more code.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> class Twice(keras.layers.Wrapper):
    ...     def call(self, x):
    ...         return self.layer(self.layer(x))
    >>> Twice(keras.layers.Dense(3))(np.ones((2, 3), np.float32)).shape
    (2, 3)
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.keras.engine.base_layer import Layer


class Wrapper(Layer):
    """A layer holding ``layer`` (built with this layer's input shape).

    Args:
        layer: The wrapped :class:`Layer`.

    Raises:
        ValueError: ``layer`` is not a Layer.
    """

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if not isinstance(layer, Layer):
            raise ValueError(f'{type(self).__name__}: argument layer: expected a keras Layer, '
                             f'got {type(layer).__name__}')
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape: Any = None) -> None:
        if not self.layer.built:
            self.layer._maybe_build(input_shape)
        self.built = True

    def get_config(self) -> dict:
        from chainlet.keras.layers.recurrent import serialize_layer
        config = super().get_config()
        config['layer'] = serialize_layer(self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Wrapper':
        from chainlet.keras.layers.recurrent import deserialize_layer
        config = dict(config)
        config['layer'] = deserialize_layer(config['layer'], custom_objects)
        return cls(**config)


__all__ = ['Wrapper']
