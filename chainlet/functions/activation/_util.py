"""Helpers shared by the activation functions: hyper-parameter checks and dtype-keeping scalars."""
from __future__ import annotations

import math
from typing import Any

import numpy

_REAL = (int, float, numpy.integer, numpy.floating)


def real_param(func: str, name: str, value: Any) -> float:
    """Return ``value`` as a finite Python float, or raise naming ``func`` and ``name``.

    ``bool`` is rejected although it is an ``int``: ``slope=True`` is almost surely a mistake.
    A 0-d integer or float NumPy array counts as a number (Chainer accepts one, and
    ``numpy.random.uniform(1, 2, ())`` makes one).
    """
    if isinstance(value, numpy.ndarray) and value.ndim == 0 and value.dtype.kind in 'iuf':
        value = value[()]
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, _REAL):
        raise TypeError(f'{func}: argument {name}: expected a real number, '
                        f'got {type(value).__name__}')
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f'{func}: argument {name}: expected a finite number, got {v}')
    return v


def positive_param(func: str, name: str, value: Any) -> float:
    """Like :func:`real_param` but also require ``value > 0``."""
    v = real_param(func, name, value)
    if v <= 0:
        raise ValueError(f'{func}: argument {name}: expected a positive number, got {v}')
    return v
