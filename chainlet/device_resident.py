"""``DeviceResident``: an object whose arrays live on one device and move together.

:class:`~chainlet.Link` is the main device resident: ``link.to_device('@cupy:0')`` walks the
link hierarchy with a *visitor* (:class:`DeviceResidentsVisitor`): every resident records the
new device, every registered Variable is moved in place and every registered array is replaced
by its copy on the device. A resident with a custom sub-hierarchy overrides
:meth:`DeviceResident.device_resident_accept` to show the visitor its own arrays.

``to_cpu()``, ``to_gpu()`` and ``to_intel64()`` are Chainer's older spellings: they still work
and emit ``DeprecationWarning``. As in Chainer, a subclass that overrides one of them gets a
``DeprecationWarning`` when it is defined, and the override is still called when the hierarchy
is moved (also by ``to_device``); ``to_device``, ``to_chx`` and ``from_chx`` cannot be overridden
(``TypeError`` at class definition).

Example:
    >>> import numpy as np, chainlet
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
    >>> link.to_device('@numpy').xp is np
    True
"""
from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any, Optional

import numpy

from chainlet import backend

_FINAL = ('to_device', 'to_chx', 'from_chx')
_LEGACY = ('to_cpu', 'to_gpu', 'to_intel64')
_LEGACY_DEVICE_NAMES = {'to_cpu': '@numpy', 'to_gpu': '@cupy:N', 'to_intel64': '@intel64'}


class DeviceResident:
    """Base class of objects holding arrays on one device (see the module docstring).

    Attributes:
        device: The :class:`~chainlet.backend.Device` the object lives on (the CPU at first).
    """

    _device: Any = backend.CpuDevice()
    # Names among to_cpu/to_gpu/to_intel64 that a subclass overrides (set per class).
    _overridden_to_methods: tuple = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in _FINAL:
            if name in cls.__dict__:
                raise TypeError(f'{cls.__name__}: {name} of a DeviceResident cannot be '
                                f'overridden; override device_resident_accept instead')
        for name in _LEGACY:
            if name in cls.__dict__:
                warnings.warn(f'{cls.__name__} overrides {name}, which is deprecated; override '
                              f'device_resident_accept instead', DeprecationWarning,
                              stacklevel=2)
        cls._overridden_to_methods = tuple(
            name for name in _LEGACY if getattr(cls, name) is not getattr(DeviceResident, name))

    def device_resident_accept(self, visitor: 'DeviceResidentsVisitor') -> None:
        """Show ``visitor`` this object and everything it holds on its device.

        Subclasses with arrays or children call ``super().device_resident_accept(visitor)``
        first, then ``visitor.visit_variable(v)`` for Variables and ``x = visitor.visit_array(x)``
        for arrays.
        """
        visitor.visit_device_resident(self)

    @property
    def device(self) -> Any:
        """The device this object lives on."""
        return self._device

    @property
    def xp(self) -> ModuleType:
        """The array module of :attr:`device` (``numpy`` or ``cupy``)."""
        return self._device.xp

    def to_device(self, device: Any) -> 'DeviceResident':
        """Move every array of this object (and its children) to ``device``; returns ``self``.

        Args:
            device: Anything :func:`chainlet.backend.get_device` accepts (``'@numpy'``,
                ``'@cupy:0'``, ``-1``, a Device, ...).
        """
        self.device_resident_accept(_ToDeviceVisitor(backend.get_device(device)))
        return self

    def to_cpu(self) -> 'DeviceResident':
        """Deprecated spelling of ``to_device('@numpy')``."""
        self.device_resident_accept(_ToDeviceVisitor(
            backend.CpuDevice(), entry=('to_cpu', {}), start=self))
        return self

    def to_gpu(self, device: Any = None) -> 'DeviceResident':
        """Deprecated spelling of ``to_device('@cupy:N')``.

        Unlike ``to_device``, arrays already on some GPU stay where they are (Chainer's
        "sticky" rule); a ``RuntimeWarning`` says so when they are on another GPU.

        Args:
            device: GPU id or ``cupy.cuda.Device``; the current GPU when ``None``.
        """
        cupy = backend.import_cupy()
        if device is None:
            device = cupy.cuda.get_device_id()
        target = backend.GpuDevice(device)
        self.device_resident_accept(_ToDeviceVisitor(
            target, entry=('to_gpu', {'device': target.device}), start=self, sticky=True))
        return self

    def to_intel64(self) -> 'DeviceResident':
        """Deprecated: move to iDeep arrays. iDeep is not supported by chainlet.

        Raises:
            RuntimeError: Always (after the deprecation warning), as Chainer does on a machine
                without iDeep.
        """
        _deprecated('to_intel64')
        raise RuntimeError(f'{type(self).__name__}.to_intel64: iDeep is not available '
                           f'(chainlet does not support it); use to_device("@numpy")')

    def to_chx(self) -> 'DeviceResident':
        """Move to ChainerX arrays; ChainerX is not available in chainlet.

        Raises:
            RuntimeError: Always, as Chainer does when ChainerX is not built.
        """
        raise RuntimeError('ChainerX is not available.')

    def from_chx(self) -> 'DeviceResident':
        """Move from ChainerX arrays back to NumPy/CuPy; nothing to do without ChainerX."""
        return self


def _deprecated(method: str) -> None:
    warnings.warn(f'{method} is deprecated. Please use '
                  f"to_device('{_LEGACY_DEVICE_NAMES[method]}') instead.", DeprecationWarning,
                  stacklevel=4)


class DeviceResidentsVisitor:
    """Base class of visitors walking device residents (see the module docstring)."""

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        """Process one :class:`DeviceResident`."""
        raise TypeError(f'{type(self).__name__} must define visit_device_resident')

    def visit_array(self, arr: Any) -> Any:
        """Process an array; return it or its replacement."""
        raise TypeError(f'{type(self).__name__} must define visit_array')

    def visit_variable(self, param: Any) -> None:
        """Process a Variable or Parameter (in place)."""
        raise TypeError(f'{type(self).__name__} must define visit_variable')


class _ToDeviceVisitor(DeviceResidentsVisitor):
    """Moves a hierarchy to one device.

    ``entry`` names the deprecated method (and its kwargs) that started the walk, so that a
    descendant overriding that method has it called instead of being visited; ``start`` is the
    resident the walk began at, skipped for that purpose (its override is what is running).
    ``sticky`` keeps arrays that are already on a GPU there (``to_gpu``'s rule).
    """

    def __init__(self, device: Any, entry: Optional[tuple] = None,
                 start: Optional[DeviceResident] = None, sticky: bool = False) -> None:
        if entry is not None:
            _deprecated(entry[0])
        self._device = device
        self._entry = entry
        self._start = start
        self._sticky = sticky

    def visit_device_resident(self, device_resident: DeviceResident) -> None:
        device_resident._device = self._device
        overridden = device_resident._overridden_to_methods
        if not overridden or device_resident is self._start:
            return
        method, kwargs = self._entry if self._entry is not None else self._legacy_call()
        if method in overridden:
            getattr(device_resident, method)(**kwargs)

    def _legacy_call(self) -> tuple:
        if isinstance(self._device, backend.GpuDevice):
            return 'to_gpu', {'device': self._device.device_id}
        return 'to_cpu', {}

    def _keep(self, array: Any) -> bool:
        if not (self._sticky and backend.is_cupy_array(array)):
            return False
        if array.device.id != self._device.device_id:
            warnings.warn(f'to_gpu: the object is already on GPU-{array.device.id}, so it stays '
                          f'there (to_gpu never moves between GPUs); use '
                          f"to_device('@cupy:{self._device.device_id}') to move it",
                          RuntimeWarning, stacklevel=5)
        return True

    def visit_array(self, arr: Any) -> Any:
        if self._keep(arr):
            return arr
        return self._device.send(arr)

    def visit_variable(self, param: Any) -> None:
        if self._keep(param.array):
            return
        if isinstance(self._device, backend.GpuDevice):
            param.to_gpu(self._device.device_id)
        else:
            param.to_cpu()


def _is_array(value: Any) -> bool:
    return isinstance(value, numpy.ndarray) or backend.is_cupy_array(value)
