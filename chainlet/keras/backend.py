"""Session-level helpers (``from chainlet.keras import backend``); the settings live in
:mod:`chainlet.keras.config` (Keras 3 offers them under both names).

Example:
    >>> from chainlet import keras
    >>> keras.backend.clear_session()
    >>> keras.layers.Dense(2).name
    'dense'
"""
from __future__ import annotations

import gc

from chainlet.keras.config import (backend, epsilon, floatx, image_data_format,  # noqa: F401
                                   set_epsilon, set_floatx, set_image_data_format,
                                   standardize_data_format)
from chainlet.keras.engine.base_layer import reset_name_counts


def clear_session() -> None:
    """Restart automatic layer names (``dense``, ``dense_1``... start over) and collect
    garbage. Existing models keep working."""
    reset_name_counts()
    gc.collect()


__all__ = ['clear_session', 'floatx', 'set_floatx', 'epsilon', 'set_epsilon',
           'image_data_format', 'set_image_data_format', 'backend', 'standardize_data_format']
