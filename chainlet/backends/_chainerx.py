"""Chainer's ChainerX backend names (``chainer.backend.ChainerxDevice``, ``to_chx``,
``from_chx``), for a chainlet that has no ChainerX.

``ChainerxDevice.from_array`` answers ``None`` for every array, creating a ChainerX device or
converting to ChainerX raises ``RuntimeError``, and :func:`from_chx` returns NumPy and CuPy
arrays as they are (there is nothing to convert from). ``Link.to_chx`` and ``from_chx`` rely
on the same rules.

Example:
    >>> import numpy as np
    >>> from chainlet import backend
    >>> x = np.zeros(2)
    >>> backend.ChainerxDevice.from_array(x) is None, backend.from_chx(x) is x
    (True, True)
"""
from __future__ import annotations

from typing import Any

from chainlet import backend
from chainlet._devices import Device

_UNAVAILABLE = 'ChainerX is not available: chainlet computes with NumPy and CuPy only'


class ChainerxDevice(Device):
    """Chainer's device for ChainerX arrays. Creating one raises ``RuntimeError``."""

    def __init__(self, device: Any = None) -> None:
        raise RuntimeError(f'ChainerxDevice: {_UNAVAILABLE}')

    @staticmethod
    def from_array(array: Any) -> None:
        """``None``: no array is a ChainerX array here."""
        return None

    @staticmethod
    def from_fallback_device(device: Any) -> 'ChainerxDevice':
        """Raises ``RuntimeError``: there is no ChainerX device to fall back from."""
        raise RuntimeError(f'ChainerxDevice.from_fallback_device: {_UNAVAILABLE}')


def _array_from_chainerx(array: Any) -> Any:
    if array is None or backend.is_array(array):
        return array
    raise TypeError(f'from_chx: expected a numpy or cupy ndarray, got {type(array).__name__}')


def from_chx(array: Any) -> Any:
    """Return NumPy/CuPy arrays (or lists/tuples of them) unchanged: there is no ChainerX."""
    return backend._convert_arrays(array, _array_from_chainerx)


def to_chx(array: Any) -> Any:
    """Raises ``RuntimeError``: arrays cannot be converted to ChainerX without ChainerX."""
    raise RuntimeError(f'to_chx: {_UNAVAILABLE}')
