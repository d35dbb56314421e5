"""Chainer's ``chainer.backends._cpu``: the CPU device and conversion to NumPy.

Example:
    >>> import numpy as np
    >>> from chainlet.backends import _cpu
    >>> _cpu._to_cpu([np.float32(1), None])
    [array(1., dtype=float32), None]
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet._devices import CpuDevice

__all__ = ['CpuDevice']


def _array_to_cpu(array: Any) -> Any:
    """One array (NumPy, CuPy, or a scalar) as a NumPy array; ``None`` stays ``None``."""
    return None if array is None else CpuDevice().send_array(array)


def _to_cpu(array: Any) -> Any:
    """An array, or the arrays of a list/tuple, as NumPy arrays (see :func:`_array_to_cpu`)."""
    return backend._convert_arrays(array, _array_to_cpu)
