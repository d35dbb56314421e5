"""``keras.saving``: saving models and the registry that lets configs name user code.

* :func:`save_model` / :func:`load_model`: whole models (``.keras``, ``.npz``, ``.h5``);
* :func:`register_keras_serializable`, :func:`get_custom_objects`,
  :class:`CustomObjectScope` / :func:`custom_object_scope`, :func:`get_registered_name`,
  :func:`get_registered_object`: how a saved config finds custom layers and functions;
* :func:`serialize_keras_object` / :func:`deserialize_keras_object`: any Keras object to a
  JSON-able config and back.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> from chainlet import keras
    >>> @keras.saving.register_keras_serializable(package='Docs')
    ... class Scale(keras.layers.Layer):
    ...     def __init__(self, factor, **kwargs):
    ...         super().__init__(**kwargs)
    ...         self.factor = factor
    ...     def call(self, x):
    ...         return x * self.factor
    ...     def get_config(self):
    ...         return {**super().get_config(), 'factor': self.factor}
    >>> inputs = keras.Input((2,))
    >>> model = keras.Model(inputs, Scale(3.0)(inputs))
    >>> path = os.path.join(tempfile.mkdtemp(), 'scale.keras')
    >>> model.save(path)
    >>> keras.saving.load_model(path).predict(np.ones((1, 2)), verbose=0)
    array([[3., 3.]], dtype=float32)
"""
from __future__ import annotations

import os
from typing import Any, Optional

from chainlet.keras.saving.object_registration import (  # noqa: F401
    CustomObjectScope, custom_object_scope, get_custom_objects, get_registered_name,
    get_registered_object, register_keras_serializable)
from chainlet.keras.saving.serialization_lib import (  # noqa: F401
    deserialize_keras_object, serialize_keras_object)


def save_model(model: Any, filepath: str, overwrite: bool = True,
               include_optimizer: bool = True, **kwargs: Any) -> None:
    """Save ``model`` whole (architecture, weights, compile settings, optimizer state):
    the same as ``model.save(filepath)``.

    Args:
        model: A Keras model.
        filepath: ``.keras`` (a zip, the Keras 3 format), ``.npz`` or ``.h5`` (needs h5py).
        overwrite: When ``False``, an existing file raises ``FileExistsError``.
        include_optimizer: Also store the optimizer's iteration count and state.
    """
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f'save_model: {filepath} exists and overwrite=False')
    if kwargs:
        raise TypeError(f'save_model: unexpected keyword argument(s) {sorted(kwargs)}')
    from chainlet.keras.engine import serialization
    serialization.save_model(model, filepath, include_optimizer=include_optimizer)


def load_model(filepath: str, custom_objects: Optional[dict] = None, compile: bool = True,
               safe_mode: bool = True) -> Any:
    """Load a model written by :func:`save_model` or ``model.save``.

    Args:
        filepath: The file.
        custom_objects: ``{'name': class or function}`` for custom objects that are not
            registered with :func:`register_keras_serializable`.
        compile: Compile the model with the saved settings and restore the optimizer state.
        safe_mode: Accepted for compatibility (nothing is ever unpickled).

    Raises:
        FileNotFoundError: No such file.
        ValueError: A layer or function in the config is unknown.
        chainlet.serializers.CorruptFileError: The file is damaged or of another format.
    """
    from chainlet.keras.engine import serialization
    return serialization.load_model(filepath, custom_objects=custom_objects, compile=compile)


def save_weights(model: Any, filepath: str, overwrite: bool = True, **kwargs: Any) -> None:
    """``model.save_weights(filepath, overwrite)`` (Keras 3's ``keras.saving.save_weights``)."""
    model.save_weights(filepath, overwrite=overwrite, **kwargs)


def load_weights(model: Any, filepath: str, skip_mismatch: bool = False, **kwargs: Any) -> None:
    """``model.load_weights(filepath)`` (Keras 3's ``keras.saving.load_weights``).

    Raises:
        ValueError: ``skip_mismatch=True``, which chainlet does not support (a file that does
            not match the model always raises).
    """
    if skip_mismatch:
        raise ValueError('keras.saving.load_weights: skip_mismatch=True is not supported; a '
                         'weights file must match the model')
    model.load_weights(filepath, **kwargs)


__all__ = ['CustomObjectScope', 'custom_object_scope', 'deserialize_keras_object',
           'get_custom_objects', 'get_registered_name', 'get_registered_object', 'load_model',
           'load_weights', 'register_keras_serializable', 'save_model', 'save_weights',
           'serialize_keras_object']
