"""``keras.layers.Pipeline``: preprocessing layers applied in order, as one layer.

Unlike a ``Sequential`` model it is a plain layer meant for data pipelines: it runs in training
mode unless told otherwise (Keras's ``call(inputs, training=True)``), so augmentation layers
in it transform the data; each layer's mask is handed on to the next.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> pipeline = keras.layers.Pipeline([keras.layers.Rescaling(1 / 255),
    ...                                   keras.layers.CenterCrop(2, 2)])
    >>> pipeline(np.full((1, 4, 4, 3), 255.0, np.float32)).shape
    (1, 2, 2, 3)
"""
from __future__ import annotations

import inspect
from typing import Any, Optional

from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.layers._utils import get_mask


class Pipeline(Layer):
    """Apply ``layers`` one after the other.

    Args:
        layers: A list of layers.
        name: Name of the layer.

    Raises:
        TypeError: An element of ``layers`` is not a Layer.
    """

    def __init__(self, layers: list, name: Optional[str] = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        for i, layer in enumerate(layers):
            if not isinstance(layer, Layer):
                raise TypeError(f'Pipeline "{self.name}": argument layers: element {i} is '
                                f'{type(layer).__name__}, not a keras Layer')
        self._pipeline_layers = list(layers)

    @property
    def layers(self) -> list:
        return list(self._pipeline_layers)

    def call(self, inputs: Any, training: Optional[bool] = None, mask: Any = None) -> Any:
        if training is None:
            training = True  # Keras's default for a pipeline (augmentation in data pipelines)
        x = inputs
        for layer in self._pipeline_layers:
            params = inspect.signature(layer.call).parameters
            kwargs: dict = {}
            if 'mask' in params and mask is not None:
                kwargs['mask'] = mask
            if 'training' in params:
                kwargs['training'] = training
            x = layer(x, **kwargs)
            mask = get_mask(x)
        return x

    def get_config(self) -> dict:
        from chainlet.keras.layers.recurrent import serialize_layer
        return {'name': self.name, 'layers': [serialize_layer(layer)
                                              for layer in self._pipeline_layers]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Pipeline':
        from chainlet.keras.layers.recurrent import deserialize_layer
        layers = config.get('layers')
        if not isinstance(layers, (list, tuple)):
            raise ValueError(f'Pipeline.from_config: the config needs a list of layers under '
                             f'"layers", got {layers!r}')
        config = dict(config, layers=[deserialize_layer(c, custom_objects) for c in layers])
        return cls(**config)


__all__ = ['Pipeline']
