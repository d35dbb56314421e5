"""``LinkLayer``: use any chainlet ``Link`` as a Keras layer."""
from __future__ import annotations

from typing import Any

import chainlet
from chainlet import Link
from chainlet.keras.engine.base_layer import Layer


class LinkLayer(Layer):
    """Wraps a chainlet :class:`~chainlet.Link` so that it can be called on KerasTensors and
    trained by ``fit``.

    The link's parameters become the layer's weights (trainable unless the layer is frozen).
    Chainer links read ``chainlet.config.train``; the layer sets it from Keras's ``training``
    flag, so ``fit`` runs the link in training mode and ``predict`` in test mode. Several
    inputs (a list) are passed as separate arguments.

    Args:
        link: The chainlet link (its parameters may be initialized lazily).
        **kwargs: ``name``, ``trainable``, ``dtype``...

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet import keras
        >>> inputs = keras.Input(shape=(3,))
        >>> outputs = keras.layers.LinkLayer(chainlet.links.Linear(3, 2))(inputs)
        >>> model = keras.Model(inputs, outputs)
        >>> model.predict(np.ones((4, 3), np.float32), verbose=0).shape
        (4, 2)
        >>> [tuple(w.shape) for w in model.weights]  # chainlet's layout: W is (out, in)
        [(2, 3), (2,)]
    """

    def __init__(self, link: Link, **kwargs: Any) -> None:
        if not isinstance(link, Link):
            raise TypeError(f'LinkLayer: argument link: expected a chainlet Link, got '
                            f'{type(link).__name__}')
        super().__init__(**kwargs)
        self.link = link

    def call(self, inputs: Any, training: Any = None) -> Any:
        args = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        with chainlet.using_config('train', bool(training)):
            return self.link(*args)

    def get_config(self) -> dict:
        raise TypeError(f'LinkLayer "{self.name}" wraps a Python object '
                        f'({type(self.link).__name__}) and has no config; save its weights with '
                        f'save_weights() and rebuild the model in code')
