"""Device objects: where arrays live and where kernels run (re-exported by ``chainlet.backend``).

A device is named the way Chainer names it: ``'@numpy'`` for host memory and ``'@cupy:N'`` for
GPU ``N``. :func:`get_device` also accepts ``-1``, ``N``, ``'cpu'``, ``'cuda:N'`` and device
objects. Creating a :class:`GpuDevice` checks that CuPy is installed and that the GPU exists, so
a wrong spec fails where it is written, not at the first kernel.

Example:
    >>> import numpy as np
    >>> from chainlet import backend
    >>> cpu = backend.get_device('@numpy')
    >>> cpu, cpu.xp is np, cpu == backend.CpuDevice()
    (@numpy, True, True)
    >>> cpu.send({'x': [np.float32(1)], 'y': None})
    {'x': [array(1., dtype=float32)], 'y': None}
    >>> backend.get_device_from_array(np.zeros(2))
    @numpy
"""
from __future__ import annotations

import contextlib
from types import ModuleType
from typing import Any, Iterator

import numpy

from chainlet import backend


class Device:
    """Base class of devices; use :class:`CpuDevice`, :class:`GpuDevice` or :func:`get_device`.

    Attributes:
        name: ``'@numpy'`` or ``'@cupy:N'`` (also what ``repr`` and ``str`` give).
        device_id: ``-1`` for the CPU, the GPU number otherwise.
    """

    name = ''
    device_id = -1

    @property
    def xp(self) -> ModuleType:
        """The array module of the device (``numpy`` or ``cupy``)."""
        raise NotImplementedError

    def send_array(self, array: Any) -> Any:
        """Return one array (NumPy or CuPy) on this device; the same object if it is there."""
        raise NotImplementedError

    def is_array_supported(self, array: Any) -> bool:
        """True when ``array`` lives on this device."""
        raise NotImplementedError

    def use(self) -> None:
        """Make this device the current one (a no-op on the CPU)."""

    def send(self, arrays: Any) -> Any:
        """Send arrays to this device, recursing into lists, tuples and dicts.

        ``None`` passes through; a :class:`~chainlet.Variable` (or ``Parameter``) is moved in
        place and returned, as :meth:`~chainlet.Variable.to_device` does.

        Args:
            arrays: An array, a Variable, ``None``, or a list/tuple/dict of those (nested).

        Returns:
            The same structure with every array on this device.
        """
        if arrays is None:
            return None
        if backend.is_array(arrays) or isinstance(arrays, numpy.generic):
            return self.send_array(arrays)
        if isinstance(arrays, (list, tuple)):
            return type(arrays)(self.send(a) for a in arrays)
        if isinstance(arrays, dict):
            return {key: self.send(value) for key, value in arrays.items()}
        if hasattr(arrays, 'to_device') and hasattr(arrays, 'node'):  # a Variable
            return arrays.to_device(self)
        raise TypeError(f'{type(self).__name__}.send: expected an array, a Variable, None or a '
                        f'list/tuple/dict of them, got {type(arrays).__name__}')

    def __eq__(self, other: Any) -> bool:
        if isinstance(other, Device):
            return type(self) is type(other) and self.device_id == other.device_id
        if isinstance(other, str):  # so that code comparing with '@numpy' keeps working
            try:
                return backend.parse_device_spec(other) == self.device_id
            except ValueError:
                return False
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__


class CpuDevice(Device):
    """Host memory and NumPy.

    Example:
        >>> import numpy as np
        >>> from chainlet.backend import CpuDevice
        >>> CpuDevice().send(np.arange(2)).tolist()
        [0, 1]
    """

    name = '@numpy'
    device_id = -1

    @property
    def xp(self) -> ModuleType:
        return numpy

    def send_array(self, array: Any) -> Any:
        return backend.to_cpu(array)

    def is_array_supported(self, array: Any) -> bool:
        return isinstance(array, numpy.ndarray)


class GpuDevice(Device):
    """One CUDA GPU, used through CuPy.

    Args:
        device_id: The GPU number (``0`` for the first), or a ``cupy.cuda.Device``.

    Raises:
        RuntimeError: CuPy is not installed (the message says which extra to install), or no
            CUDA device is visible.
        ValueError: ``device_id`` is negative or not below the number of GPUs.
    """

    def __init__(self, device_id: Any = 0) -> None:
        if not isinstance(device_id, (int, numpy.integer)) and hasattr(device_id, 'id'):
            device_id = device_id.id  # a cupy.cuda.Device
        if isinstance(device_id, bool) or not isinstance(device_id, (int, numpy.integer)):
            raise TypeError(f'GpuDevice: argument device_id: expected an int, '
                            f'got {type(device_id).__name__}')
        if device_id < 0:
            raise ValueError(f'GpuDevice: argument device_id: expected a value >= 0, '
                             f'got {device_id}')
        backend.import_cupy()
        count = backend.device_count()
        if count == 0:
            raise RuntimeError('GpuDevice: CuPy is installed but no CUDA device was found')
        if device_id >= count:
            raise ValueError(f'GpuDevice: argument device_id: {count} CUDA device(s) found, '
                             f'so expected a value in [0, {count}), got {device_id}')
        self.device_id = int(device_id)
        self.name = f'@cupy:{self.device_id}'

    @classmethod
    def from_device_id(cls, device_id: int) -> 'GpuDevice':
        """The GPU numbered ``device_id`` (Chainer's spelling of the constructor)."""
        return cls(device_id)

    @classmethod
    def from_array(cls, array: Any) -> 'GpuDevice':
        """The GPU that holds the CuPy array ``array``."""
        return cls(array.device.id)

    @property
    def xp(self) -> ModuleType:
        return backend.import_cupy()

    @property
    def device(self) -> Any:
        """The ``cupy.cuda.Device`` object."""
        return backend.import_cupy().cuda.Device(self.device_id)

    def send_array(self, array: Any) -> Any:
        if backend.is_cupy_array(array) and array.device.id == self.device_id:
            return array
        return backend.to_gpu(array, self.device_id)

    def is_array_supported(self, array: Any) -> bool:
        return backend.is_cupy_array(array) and array.device.id == self.device_id

    def use(self) -> None:
        self.device.use()


def get_device(device_spec: Any) -> Device:
    """Return the device named by ``device_spec``.

    Args:
        device_spec: A :class:`Device` (returned as is), ``'@numpy'``, ``'cpu'``, ``-1``,
            ``'@cupy:N'``, ``'cuda:N'``, ``N``, the ``numpy`` module or a ``cupy.cuda.Device``.

    Returns:
        A :class:`CpuDevice` or :class:`GpuDevice`.

    Example:
        >>> from chainlet import backend
        >>> backend.get_device(-1)
        @numpy
    """
    if isinstance(device_spec, Device):
        return device_spec
    gpu_id = backend.parse_device_spec(device_spec)
    return CpuDevice() if gpu_id < 0 else GpuDevice(gpu_id)


def get_device_from_array(array: Any) -> Device:
    """Return the device holding ``array`` (a NumPy or CuPy array, or a Variable).

    Example:
        >>> import numpy as np
        >>> from chainlet import backend
        >>> backend.get_device_from_array(np.float32(1))
        @numpy
    """
    array = backend._raw(array)
    if backend.is_cupy_array(array):
        return GpuDevice(array.device.id)
    if isinstance(array, (numpy.ndarray, numpy.generic)):
        return CpuDevice()
    raise TypeError(f'get_device_from_array: expected a numpy or cupy ndarray or a Variable, '
                    f'got {type(array).__name__}')


@contextlib.contextmanager
def using_device(device_spec: Any) -> Iterator[Device]:
    """Context manager that makes a device current (a GPU's kernels and allocations go there).

    Args:
        device_spec: Anything :func:`get_device` accepts.

    Yields:
        The device.

    Example:
        >>> from chainlet import backend
        >>> with backend.using_device('@numpy') as device:
        ...     device
        @numpy
    """
    device = get_device(device_spec)
    if isinstance(device, GpuDevice):
        with device.device:
            yield device
    else:
        yield device


__all__ = ['Device', 'CpuDevice', 'GpuDevice', 'get_device', 'get_device_from_array',
           'using_device']
