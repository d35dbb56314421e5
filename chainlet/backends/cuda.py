"""Chainer's ``chainer.backends.cuda`` (alias ``chainer.cuda``) names, for ported scripts.

Everything here delegates to :mod:`chainlet.backend`; new code should use that module directly.

Example:
    >>> import numpy as np
    >>> from chainlet import cuda
    >>> cuda.to_cpu(np.zeros(2)).shape
    (2,)
    >>> cuda.get_array_module(np.zeros(1)) is np
    True
"""
from __future__ import annotations

from typing import Any

from chainlet.backend import (  # noqa: F401
    GpuDevice, get_array_module, get_device, gpu_available, import_cupy, to_cpu, to_gpu)


def __getattr__(name: str) -> Any:
    # ``cuda.cupy`` and ``cuda.ndarray`` exist only when CuPy is installed.
    if name == 'cupy':
        return import_cupy()
    if name == 'ndarray':
        return import_cupy().ndarray
    if name == 'available':
        return gpu_available()
    raise AttributeError(f'module chainlet.backends.cuda has no attribute {name!r}')


def get_device_from_id(device_id: int) -> Any:
    """The ``cupy.cuda.Device`` of GPU ``device_id`` (Chainer's name)."""
    return import_cupy().cuda.Device(device_id)


def get_device_from_array(array: Any) -> Any:
    """The ``cupy.cuda.Device`` holding ``array`` (Chainer's name)."""
    return array.device


def check_cuda_available() -> None:
    """Raise ``RuntimeError`` with installation advice unless a GPU can be used."""
    import_cupy()
    if not gpu_available():
        raise RuntimeError('CuPy is installed but no CUDA device was found')
