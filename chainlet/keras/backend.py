"""Session-level helpers (``from chainlet.keras import backend``).

Example:
    >>> from chainlet import keras
    >>> keras.backend.clear_session()
    >>> keras.layers.Dense(2).name
    'dense'
"""
from __future__ import annotations

import gc

from chainlet.keras.engine.base_layer import reset_name_counts

_FLOATX = 'float32'
_EPSILON = 1e-7


def clear_session() -> None:
    """Restart automatic layer names (``dense``, ``dense_1``... start over) and collect
    garbage. Existing models keep working."""
    reset_name_counts()
    gc.collect()


def floatx() -> str:
    """The default float type of layers: ``'float32'``."""
    return _FLOATX


def epsilon() -> float:
    """The fuzz factor used by losses and metrics: ``1e-7``."""
    return _EPSILON


def image_data_format() -> str:
    """``'channels_last'``, the default layout of image layers."""
    return 'channels_last'


def backend() -> str:
    """The name of the backend: ``'chainlet'``."""
    return 'chainlet'


__all__ = ['clear_session', 'floatx', 'epsilon', 'image_data_format', 'backend']
