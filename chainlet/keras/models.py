"""Loading and copying models (``from chainlet.keras import models``).

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> inputs = keras.Input(shape=(3,))
    >>> model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    >>> clone = keras.models.model_from_json(model.to_json())
    >>> clone.set_weights(model.get_weights())
    >>> x = np.ones((1, 3), np.float32)
    >>> bool(np.allclose(clone.predict(x, verbose=0), model.predict(x, verbose=0)))
    True
"""
from __future__ import annotations

import json
from typing import Any, Callable, Optional

from chainlet.keras.engine import serialization
from chainlet.keras.engine.model import Model  # noqa: F401
from chainlet.keras.engine.sequential import Sequential  # noqa: F401


def load_model(filepath: str, custom_objects: Optional[dict] = None,
               compile: bool = True, safe_mode: bool = True) -> Any:
    """Load a model saved by ``model.save(filepath)`` (``.keras``, ``.npz`` or ``.h5``).

    Args:
        filepath: The file.
        custom_objects: ``{'ClassName': class}`` for layers (and losses, metrics) that are not
            part of chainlet.keras.
        compile: Compile the model with the saved compile settings (the optimizer starts
            fresh: its state is not saved).
        safe_mode: Accepted for compatibility (nothing is ever unpickled).

    Raises:
        ValueError: ``Unknown layer: X; pass it in custom_objects``.
    """
    return serialization.load_model(filepath, custom_objects=custom_objects, compile=compile)


def save_model(model: Any, filepath: str, overwrite: bool = True, **kwargs: Any) -> None:
    """Save ``model`` whole, like ``model.save(filepath)`` (see :func:`chainlet.keras.saving.
    save_model`)."""
    from chainlet.keras import saving
    saving.save_model(model, filepath, overwrite=overwrite, **kwargs)


def model_from_json(json_string: str, custom_objects: Optional[dict] = None) -> Any:
    """A new (untrained) model from ``model.to_json()``."""
    return serialization.model_from_dict(json.loads(json_string), custom_objects)


def model_from_config(config: dict, custom_objects: Optional[dict] = None) -> Any:
    """A new model from ``{'class_name': ..., 'config': ...}``."""
    return serialization.deserialize_layer(config, custom_objects)


def clone_model(model: Any, input_tensors: Any = None,
                clone_function: Optional[Callable] = None) -> Any:
    """A new model with the same architecture and freshly initialized weights.

    Args:
        model: A functional or Sequential model (subclassed models need ``get_config``).
        input_tensors: Not supported other than ``None``.
        clone_function: Not supported other than ``None``.
    """
    if input_tensors is not None or clone_function is not None:
        raise ValueError('clone_model: input_tensors and clone_function are not supported by '
                         'chainlet.keras; rebuild the model instead')
    return serialization.deserialize_layer(serialization.serialize_layer(model))


__all__ = ['load_model', 'save_model', 'model_from_json', 'model_from_config', 'clone_model',
           'Model', 'Sequential']
