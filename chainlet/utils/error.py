"""Formatting of array shapes and dtypes for error messages.

Example:
    >>> import numpy as np
    >>> _format_array_props([np.zeros((2, 3), np.float32), None])
    '(2, 3):float32, None'
"""
from __future__ import annotations

from typing import Any, Sequence


def _format_array_props(arrays: Sequence[Any]) -> str:
    # ``shape:dtype`` of each array (``None`` for a missing one), comma separated.
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(f'_format_array_props: expected a list or tuple of arrays, '
                        f'got {type(arrays).__name__}')
    return ', '.join('None' if a is None else f'{a.shape}:{a.dtype.name}' for a in arrays)
