"""Device objects: where arrays live and where kernels run (re-exported by ``chainlet.backend``).

A device is named the way Chainer names it: ``'@numpy'`` for host memory and ``'@cupy:N'`` for
GPU ``N`` (``str(device)``; ``repr`` is Chainer's ``<CpuDevice (numpy)>``). :func:`get_device`
also accepts ``-1``, ``N``, ``'cpu'``, ``'cuda:N'``, the ``numpy`` module, ``(cupy, N)`` tuples
and device objects. Creating a :class:`GpuDevice` checks that CuPy is installed and that the GPU
exists, so a wrong spec fails where it is written, not at the first kernel.

The API is Chainer's ``chainer.backend.Device``: ``xp``, ``name``, ``supported_array_types``,
``from_array`` (``None`` for arrays of other devices), ``send``, ``send_array``,
``is_array_supported``, ``use`` and ``create_context``. iDeep and ChainerX are not part of
chainlet: their devices (``chainlet.backends.intel64.Intel64Device``,
``chainlet.backends._chainerx.ChainerxDevice``) exist so that Chainer code can name them, and
report that they are unavailable.

Example:
    >>> import numpy as np
    >>> from chainlet import backend
    >>> cpu = backend.get_device('@numpy')
    >>> cpu, str(cpu), cpu.xp is np, cpu == backend.CpuDevice()
    (<CpuDevice (numpy)>, '@numpy', True, True)
    >>> cpu.send({'x': [np.float32(1)], 'y': None})
    {'x': [array(1., dtype=float32)], 'y': None}
    >>> backend.get_device_from_array(np.zeros(2))
    <CpuDevice (numpy)>
"""
from __future__ import annotations

import contextlib
import threading
from types import ModuleType
from typing import Any, ContextManager, Iterator

import numpy

from chainlet import backend

_SCALARS = (bool, int, float, complex, numpy.generic)
_entered = threading.local()  # contexts of devices used in `with`, per thread


class Device:
    """Base class of devices; use :class:`CpuDevice`, :class:`GpuDevice` or :func:`get_device`.

    A device is also a context manager that makes itself current (Chainer's devices refuse
    ``with``; :func:`using_device` does the same for any spec).

    Attributes:
        name: ``'@numpy'`` or ``'@cupy:N'`` (what ``str`` gives).
        device_id: ``-1`` for the CPU, the GPU number otherwise.
    """

    name = ''
    device_id = -1

    @property
    def xp(self) -> ModuleType:
        """The array module of the device (``numpy`` or ``cupy``)."""
        raise NotImplementedError(f'{type(self).__name__} must define xp')

    @property
    def supported_array_types(self) -> tuple:
        """The array types the device's module computes on."""
        raise NotImplementedError(f'{type(self).__name__} must define supported_array_types')

    @staticmethod
    def from_array(array: Any) -> Device | None:
        """The device of this kind holding ``array``, or ``None`` (subclasses answer)."""
        return None

    def send_array(self, array: Any) -> Any:
        """Return one array (NumPy or CuPy) on this device; the same object if it is there."""
        raise NotImplementedError(f'{type(self).__name__} must define send_array')

    def is_array_supported(self, array: Any) -> bool:
        """True when ``array`` lives on this device."""
        raise NotImplementedError(f'{type(self).__name__} must define is_array_supported')

    def use(self) -> None:
        """Make this device the current one in this thread (a no-op on the CPU)."""

    def create_context(self) -> ContextManager[Any]:
        """A context manager in which this device is current (what :func:`using_device` uses)."""
        return contextlib.nullcontext()

    def __enter__(self) -> Device:
        context = self.create_context()
        context.__enter__()
        # Per thread: one device object may be entered by several threads at once.
        stacks: dict = _entered.__dict__  # keyed by the devices' ids
        stacks.setdefault(id(self), []).append(context)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        stacks: dict = _entered.__dict__
        stack = stacks[id(self)]
        context = stack.pop()
        if not stack:
            del stacks[id(self)]
        context.__exit__(*exc_info)

    def send(self, arrays: Any) -> Any:
        """Send arrays to this device, recursing into lists, tuples and dicts.

        ``None`` passes through; an object found twice in a list or tuple is sent once (both
        places get the same result, as in Chainer); a :class:`~chainlet.Variable` (or
        ``Parameter``) is moved in place and returned, as :meth:`~chainlet.Variable.to_device`
        does.

        Args:
            arrays: An array, a Variable, ``None``, or a list/tuple/dict of those (nested).

        Returns:
            The same structure with every array on this device.

        Raises:
            TypeError: Something that is none of the above.
        """
        if arrays is None:
            return None
        if backend.is_array(arrays) or isinstance(arrays, _SCALARS):
            return self.send_array(arrays)
        if isinstance(arrays, (list, tuple)):
            done: dict[int, Any] = {}
            out = []
            for a in arrays:
                key = id(a)
                if key not in done:
                    done[key] = self.send(a)
                out.append(done[key])
            if hasattr(arrays, '_fields'):  # a namedtuple
                return type(arrays)(*out)
            return type(arrays)(out)
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

    def __str__(self) -> str:
        return self.name


class CpuDevice(Device):
    """Host memory and NumPy.

    Example:
        >>> import numpy as np
        >>> from chainlet.backend import CpuDevice
        >>> CpuDevice().send(np.arange(2)).tolist()
        [0, 1]
        >>> CpuDevice.from_array(np.zeros(1)), CpuDevice.from_array(1)
        (<CpuDevice (numpy)>, None)
    """

    name = '@numpy'
    device_id = -1
    xp = numpy  # type: ignore[assignment]
    supported_array_types = (numpy.ndarray,)  # type: ignore[assignment]

    @staticmethod
    def from_array(array: Any) -> CpuDevice | None:
        """``CpuDevice()`` if ``array`` is a ``numpy.ndarray``, else ``None``."""
        return CpuDevice() if isinstance(array, numpy.ndarray) else None

    def send_array(self, array: Any) -> Any:
        # Chainer turns scalars (NumPy's and Python's) into 0-d arrays here.
        if isinstance(array, (bool, int, float, complex)):
            return numpy.asarray(array)
        return backend.to_cpu(array)

    def is_array_supported(self, array: Any) -> bool:
        return isinstance(array, numpy.ndarray)

    def __repr__(self) -> str:
        return '<CpuDevice (numpy)>'


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
    def from_device_id(cls, device_id: Any) -> GpuDevice:
        """The GPU numbered ``device_id``.

        Raises:
            RuntimeError: CuPy is not installed.
            ValueError: ``device_id`` is not a non-negative integer (also ``None``, floats).
        """
        backend.import_cupy()
        if isinstance(device_id, bool) or not isinstance(device_id, (int, numpy.integer)) \
                or device_id < 0:
            raise ValueError(f'GpuDevice.from_device_id: invalid CUDA device id {device_id!r} '
                             f'(expected an int >= 0)')
        return cls(device_id)

    @staticmethod
    def from_array(array: Any) -> GpuDevice | None:
        """The GPU holding the CuPy array ``array``, or ``None`` for anything else."""
        if backend.is_cupy_array(array):
            return GpuDevice(array.device.id)
        return None

    @property
    def xp(self) -> ModuleType:
        return backend.import_cupy()

    @property
    def supported_array_types(self) -> tuple:
        return (backend.import_cupy().ndarray,)

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

    def create_context(self) -> ContextManager[Any]:
        # A new cupy.cuda.Device each time: one instance cannot be entered from two threads.
        return self.device

    def __repr__(self) -> str:
        return f'<GpuDevice (cupy):{self.device_id}>'


def _tuple_device(spec: tuple) -> Device:
    # Chainer 6's (module, index) specs: (numpy,), (cupy, N), ('native', N), ('cuda', N).
    module, index = spec[0], spec[1] if len(spec) > 1 else None
    if module is numpy:
        return CpuDevice()
    if isinstance(module, ModuleType) and module.__name__ == 'cupy':
        if index is None:
            index = module.cuda.Device().id
        return GpuDevice.from_device_id(index)
    if module in ('native', 'cuda'):
        raise RuntimeError(f'get_device: {spec!r} names a ChainerX device; ChainerX is not '
                           f'part of chainlet (use "@numpy" or "@cupy:N")')
    raise ValueError(f'get_device: expected a (module, index) tuple such as (cupy, 0), '
                     f'got {spec!r}')


def get_device(device_spec: Any) -> Device:
    """Return the device named by ``device_spec``.

    Args:
        device_spec: A :class:`Device` (returned as is), ``'@numpy'``, ``'cpu'``, ``-1``,
            ``'@cupy:N'``, ``'cuda:N'``, ``N``, the ``numpy`` module, ``(cupy, N)``, a
            ``cupy.cuda.Device``, or ``'@intel64'`` / a ChainerX name (which raise, as these
            backends are not available).

    Returns:
        A :class:`CpuDevice` or :class:`GpuDevice`.

    Raises:
        ValueError: A spec chainlet does not know.
        TypeError: Something that is not a spec (``True``, a float, ...).
        RuntimeError: A GPU without CuPy, or an iDeep/ChainerX device.

    Example:
        >>> from chainlet import backend
        >>> backend.get_device(-1)
        <CpuDevice (numpy)>
    """
    if isinstance(device_spec, Device):
        return device_spec
    if isinstance(device_spec, tuple) and device_spec:
        return _tuple_device(device_spec)
    if (isinstance(device_spec, str) and device_spec == '@intel64') or (
            isinstance(device_spec, ModuleType) and device_spec.__name__.endswith('.intel64')):
        from chainlet.backends import intel64
        return intel64.Intel64Device()
    if isinstance(device_spec, str) and device_spec.partition(':')[0] == 'native':
        raise RuntimeError(f'get_device: {device_spec!r} names a ChainerX device; ChainerX is '
                           f'not part of chainlet (use "@numpy" or "@cupy:N")')
    gpu_id = backend.parse_device_spec(device_spec)
    return CpuDevice() if gpu_id < 0 else GpuDevice(gpu_id)


def get_device_from_array(*arrays: Any) -> Device:
    """Return the device holding the first GPU array among ``arrays``, else the CPU.

    As in Chainer, anything that is not a CuPy array (NumPy arrays, scalars, ``None``, other
    objects) counts as the CPU; a :class:`~chainlet.Variable` counts as its array.

    Example:
        >>> import numpy as np
        >>> from chainlet import backend
        >>> backend.get_device_from_array(np.float32(1))
        <CpuDevice (numpy)>
    """
    for array in arrays:
        array = backend._raw(array)
        if backend.is_cupy_array(array):
            return GpuDevice(array.device.id)
    return CpuDevice()


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
        <CpuDevice (numpy)>
    """
    device = get_device(device_spec)
    with device.create_context():
        yield device


__all__ = ['Device', 'CpuDevice', 'GpuDevice', 'get_device', 'get_device_from_array',
           'using_device']
