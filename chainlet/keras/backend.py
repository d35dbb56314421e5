"""Session-level helpers (``from chainlet.keras import backend``); the settings live in
:mod:`chainlet.keras.config` (Keras 3 offers them under both names).

Example:
    >>> from chainlet import keras
    >>> keras.backend.clear_session()
    >>> keras.layers.Dense(2).name
    'dense'
"""
from __future__ import annotations

import collections
import gc
from typing import Any

import numpy

from chainlet.keras.config import (backend, epsilon, floatx, image_data_format,  # noqa: F401
                                   set_epsilon, set_floatx, set_image_data_format,
                                   standardize_data_format)
from chainlet.keras.engine.base_layer import reset_name_counts
from chainlet.keras.engine.keras_tensor import KerasTensor


_UIDS: collections.Counter = collections.Counter()


def clear_session(free_memory: bool = True) -> None:
    """Restart automatic layer names (``dense``, ``dense_1``... start over) and the counters
    of :func:`get_uid`; with ``free_memory``, collect garbage. Existing models keep working."""
    reset_name_counts()
    _UIDS.clear()
    if free_memory:
        gc.collect()


def get_uid(prefix: str = '') -> int:
    """1, 2, 3... for successive calls with the same ``prefix`` (until :func:`clear_session`)."""
    _UIDS[prefix] += 1
    return _UIDS[prefix]


def standardize_dtype(dtype: Any) -> str:
    """A dtype's name as Keras writes it: ``None`` and ``'float'`` mean :func:`floatx`,
    ``'int'`` ``'int32'``; NumPy dtypes, types and names give their name.

    Raises:
        ValueError: Not a dtype.
    """
    if dtype is None or dtype == 'float':
        return floatx()
    if dtype == 'int':
        return 'int32'
    if dtype == 'bfloat16':
        return 'bfloat16'
    if hasattr(dtype, 'name') and isinstance(dtype.name, str) and \
            not isinstance(dtype, numpy.dtype):
        dtype = dtype.name  # a dtype policy, a KerasTensor's or another library's dtype
    try:
        return numpy.dtype(dtype).name
    except TypeError:
        raise ValueError(f'standardize_dtype: argument dtype: not a dtype: {dtype!r}') from None


def is_float_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a floating-point type (bfloat16 included)."""
    return standardize_dtype(dtype).startswith(('float', 'bfloat'))


def is_int_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` is a signed or unsigned integer type."""
    return standardize_dtype(dtype).startswith(('int', 'uint'))


def result_type(*dtypes: Any) -> str:
    """The dtype of an operation on ``dtypes`` (NumPy's promotion; :func:`floatx` for none)."""
    if not dtypes:
        return floatx()
    return numpy.result_type(*[numpy.dtype(standardize_dtype(d)) for d in dtypes]).name


def is_keras_tensor(x: Any) -> bool:
    """Whether ``x`` is a symbolic tensor of a functional model (``keras.Input`` or a layer's
    output on one)."""
    return isinstance(x, KerasTensor)


__all__ = ['backend', 'clear_session', 'epsilon', 'floatx', 'get_uid', 'image_data_format',
           'is_float_dtype', 'is_int_dtype', 'is_keras_tensor', 'result_type', 'set_epsilon',
           'set_floatx', 'set_image_data_format', 'standardize_data_format',
           'standardize_dtype']
