"""Array modules and devices: NumPy always, CuPy when it is installed and a GPU is present.

CuPy is imported lazily, on the first question that needs it, so ``import chainlet`` never
requires it. A CuPy array can only exist if CuPy was imported by someone, which is why the cheap
question "is this a NumPy array?" never has to import CuPy.

Example:
    >>> import numpy as np
    >>> from chainlet import backend
    >>> backend.get_array_module(np.zeros(2)) is np
    True
"""
from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy

_INSTALL_HINT = ('install the CUDA extra that matches your toolkit: '
                 'pip install "chainlet-dl[cuda12]" or pip install "chainlet-dl[cuda13]"')


def _cupy_if_loaded() -> ModuleType | None:
    """Return CuPy if it has been imported in this process, without importing it."""
    return sys.modules.get('cupy')


def import_cupy() -> ModuleType:
    """Import and return CuPy, or raise ``RuntimeError`` telling how to install it."""
    try:
        import cupy
    except ImportError as e:
        raise RuntimeError(f'CuPy is not installed, so no GPU can be used; {_INSTALL_HINT}') from e
    return cupy


def is_cupy_array(x: Any) -> bool:
    """True when ``x`` is a ``cupy.ndarray`` (never imports CuPy)."""
    cupy = _cupy_if_loaded()
    return cupy is not None and isinstance(x, cupy.ndarray)


def is_array(x: Any) -> bool:
    """True for ``numpy.ndarray`` and ``cupy.ndarray``."""
    return isinstance(x, numpy.ndarray) or is_cupy_array(x)


def _raw(x: Any) -> Any:
    # Variables are unwrapped by duck typing so that this module never imports variable.py.
    return x.array if hasattr(x, 'node') and hasattr(x, 'array') else x


def get_array_module(*args: Any) -> ModuleType:
    """Return ``cupy`` if any argument is (or holds) a CuPy array, else ``numpy``.

    Args:
        *args: Arrays, Variables or other objects; other objects are ignored.

    Returns:
        The module to compute with (``numpy`` or ``cupy``).
    """
    cupy = _cupy_if_loaded()
    if cupy is not None:
        for a in args:
            if isinstance(_raw(a), cupy.ndarray):
                return cupy
    return numpy


def array_type_name(x: Any) -> str:
    """Name of an array's type as users know it, e.g. ``numpy.ndarray``."""
    t = type(x)
    module = t.__module__.split('.')[0]
    return f'{module}.{t.__name__}'


def check_same_array_module(function_name: str, arrays: tuple | list) -> ModuleType:
    """Return the common array module of ``arrays`` or raise ``TypeError`` naming both kinds.

    Called only when the fast "all NumPy" test in ``FunctionNode.apply`` fails (which then
    calls :func:`check_same_device` for CuPy inputs).
    """
    kinds: dict[str, int] = {}
    for i, a in enumerate(arrays):
        if a is None:
            raise TypeError(f'{function_name}: input {i} has no data (None); an uninitialized '
                            f'Parameter gets its data from its initializer once its shape is '
                            f'known')
        if not is_array(a):  # a scalar or a list where an array belongs: not a device problem
            hint = ' (wrap scalars with numpy.asarray(value, dtype))' \
                if isinstance(a, (int, float, complex, numpy.generic)) else ''
            raise TypeError(f'{function_name}: input {i} must be a Variable or an ndarray, '
                            f'got {type(a).__name__}{hint}')
        kinds.setdefault(array_type_name(a), i)
    if len(kinds) > 1:
        (n1, i1), (n2, i2) = list(kinds.items())[:2]
        raise TypeError(
            f'{function_name}: all inputs must be on the same device and array module; '
            f'input {i1} is {n1} but input {i2} is {n2} (move them with to_cpu()/to_gpu())')
    return get_array_module(*arrays)


def check_same_device(function_name: str, arrays: tuple | list) -> Any:
    """Return the ``cupy.cuda.Device`` of the CuPy ``arrays``, or raise ``TypeError`` naming
    the two GPUs when they are on different ones."""
    first = None
    for i, a in enumerate(arrays):
        if a is None:
            continue
        if first is None:
            first = (i, a.device)
        elif a.device.id != first[1].id:
            raise TypeError(
                f'{function_name}: all inputs must be on the same device; input {first[0]} is '
                f'on @cupy:{first[1].id} but input {i} is on @cupy:{a.device.id} (move them '
                f'with to_device())')
    return None if first is None else first[1]


def to_cpu(array: Any) -> Any:
    """Return ``array`` as a NumPy array (copying from the GPU if needed).

    ``None`` and NumPy arrays pass through; lists and tuples are converted element-wise.
    """
    if array is None or isinstance(array, numpy.ndarray):
        return array
    if isinstance(array, (list, tuple)):
        return type(array)(to_cpu(a) for a in array)
    if is_cupy_array(array):
        return array.get()
    if isinstance(array, numpy.generic):
        return numpy.asarray(array)
    raise TypeError(f'to_cpu: expected a numpy or cupy ndarray, got {type(array).__name__}')


def to_gpu(array: Any, device: int | None = None) -> Any:
    """Return ``array`` as a CuPy array on GPU ``device`` (the current one when ``None``)."""
    if array is None:
        return None
    if isinstance(array, (list, tuple)):
        return type(array)(to_gpu(a, device) for a in array)
    cupy = import_cupy()
    if not isinstance(array, (numpy.ndarray, numpy.generic, cupy.ndarray)):
        raise TypeError(f'to_gpu: expected a numpy or cupy ndarray, got {type(array).__name__}')
    if device_count() == 0:
        raise RuntimeError('to_gpu: CuPy is installed but no CUDA device was found')
    if device is None:
        return cupy.asarray(array)
    with cupy.cuda.Device(device):
        return cupy.asarray(array)


def device_count() -> int:
    """Number of visible CUDA devices; 0 when CuPy or the CUDA driver is missing."""
    try:
        import cupy
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # CuPy not installed, or CUDA driver missing or broken
        return 0


def gpu_available() -> bool:
    """True when CuPy imports and at least one CUDA device is visible."""
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


def copyto(dst: Any, src: Any) -> None:
    """Copy the elements of ``src`` into the array ``dst``, across devices if needed.

    Args:
        dst: A NumPy or CuPy array.
        src: A NumPy or CuPy array (or a scalar, for a NumPy ``dst``).

    Raises:
        TypeError: ``dst`` or ``src`` is not an array.

    Example:
        >>> import numpy as np
        >>> from chainlet import backend
        >>> dst = np.zeros(2)
        >>> backend.copyto(dst, np.ones(2)); dst
        array([1., 1.])
    """
    if isinstance(dst, numpy.ndarray):
        if not (is_array(src) or isinstance(src, (bool, int, float, complex, numpy.generic))):
            raise TypeError(f'copyto: cannot copy from {type(src).__name__}; expected a numpy '
                            f'or cupy ndarray')
        numpy.copyto(dst, src.get() if is_cupy_array(src) else src)
    elif is_cupy_array(dst):
        cupy = import_cupy()
        if isinstance(src, (numpy.ndarray, numpy.generic)):
            src = numpy.asarray(src)
            if dst.flags.c_contiguous or dst.flags.f_contiguous:
                dst.set(src)
            else:
                with dst.device:
                    cupy.copyto(dst, cupy.asarray(src))
        elif isinstance(src, cupy.ndarray):
            cupy.copyto(dst, src)
        else:
            raise TypeError(f'copyto: cannot copy from {type(src).__name__}; expected a numpy '
                            f'or cupy ndarray')
    else:
        raise TypeError(f'copyto: cannot copy to {type(dst).__name__}; expected a numpy or '
                        f'cupy ndarray')


def get_array_types() -> tuple:
    """The array types chainlet computes on: ``numpy.ndarray``, and ``cupy.ndarray`` once CuPy
    has been imported (Chainer's ``chainer.get_array_types``)."""
    cupy = _cupy_if_loaded()
    return (numpy.ndarray,) if cupy is None else (numpy.ndarray, cupy.ndarray)


def get_cpu_array_types() -> tuple:
    """The array types that live in host memory: ``(numpy.ndarray,)``."""
    return (numpy.ndarray,)


def is_arrays_compatible(arrays: Any) -> bool:
    """True when the arrays (``None`` ignored) are all host arrays or all CuPy arrays."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return True
    if is_cupy_array(arrays[0]):
        cupy_ndarray = _cupy_if_loaded().ndarray  # type: ignore[union-attr]
        return all(isinstance(a, cupy_ndarray) for a in arrays)
    return all(isinstance(a, numpy.ndarray) for a in arrays)


def _convert_arrays(array: Any, func: Any) -> Any:
    """Apply ``func`` to an array, or to each item of a list/tuple (``None`` kept; an object
    seen twice is converted once), as Chainer's helper of the same name."""
    if isinstance(array, (list, tuple)):
        done: dict[int, Any] = {}
        out: list = []
        for a in array:
            if a is None:
                out.append(None)
                continue
            key = id(a)
            if key not in done:
                done[key] = func(a)
            out.append(done[key])
        return type(array)(out)
    return func(array)


def _contains_nan(x: Any) -> bool:
    """True when the float or complex array ``x`` holds a NaN."""
    if x.dtype.kind not in 'fc':
        return False
    return bool(get_array_module(x).isnan(x).any())


def _guess_device_from_array_module(xp: ModuleType) -> Any:
    """The likely device of an array module: the current GPU for CuPy, else the CPU."""
    if xp is not numpy and xp is _cupy_if_loaded():
        return GpuDevice(xp.cuda.Device().id)
    return CpuDevice()


def parse_device_spec(device: Any) -> int:
    """Return the GPU id named by ``device``, or ``-1`` for the CPU.

    Accepts ``'@numpy'``, ``'cpu'``, ``-1``, ``'@cupy:N'``, ``'cuda:N'``, ``'cuda'``, ``N``,
    device objects (:class:`Device`, ``cupy.cuda.Device``) and the ``numpy`` module.
    """
    if isinstance(device, bool):
        raise TypeError(f'device: expected a device spec such as "@numpy" or "@cupy:0", '
                        f'got {device!r}')
    if device is None:
        return -1
    if isinstance(device, (int, numpy.integer)):
        return int(device) if device >= 0 else -1
    if hasattr(device, 'device_id'):  # a chainlet Device, or cuda.DummyDevice (the CPU)
        return device.device_id
    if device is numpy:
        return -1
    device_id = getattr(device, 'id', None)
    if type(device).__module__.startswith('cupy') and isinstance(device_id, int):
        return device_id  # a cupy.cuda.Device
    if isinstance(device, str):
        spec = device.strip().lower()
        if spec.lstrip('-').isdigit():  # '-1', '0': what argparse hands over, as in Chainer
            return max(int(spec), -1)
        if spec in ('@numpy', 'cpu', 'numpy', '@cpu'):
            return -1
        for prefix in ('@cupy:', 'cuda:', 'gpu:'):
            if spec.startswith(prefix) and spec[len(prefix):].isdigit():
                return int(spec[len(prefix):])
        if spec in ('@cupy', 'cuda', 'gpu'):
            return 0
        raise ValueError(f'device: expected "@numpy", -1, "@cupy:N", "cuda:N" or an int, '
                         f'got {device!r}')
    raise TypeError(f'device: expected a device spec such as "@numpy", -1, "@cupy:N" or a '
                    f'Device, got {type(device).__name__}')


# Devices live in their own module to keep this one short; they are public here, as in Chainer.
from chainlet._devices import (  # noqa: E402,F401
    CpuDevice, Device, GpuDevice, get_device, get_device_from_array, using_device)

# Chainer's names for the backends chainlet does not have; loaded on first use so that the core
# never imports chainlet.backends.
_LAZY = {'Intel64Device': 'chainlet.backends.intel64',
         'ChainerxDevice': 'chainlet.backends._chainerx',
         'to_chx': 'chainlet.backends._chainerx', 'from_chx': 'chainlet.backends._chainerx'}


# Chainer's `chainer.backend` also exposes its CUDA module (`from chainer.backend import cuda`,
# as ChainerMN does); it is a module, so it is returned itself rather than an attribute of it.
_LAZY_MODULES = {'cuda': 'chainlet.backends.cuda', 'intel64': 'chainlet.backends.intel64'}


def __getattr__(name: str) -> Any:
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module(_LAZY_MODULES[name])
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f'module chainlet.backend has no attribute {name!r}')
    return getattr(importlib.import_module(module), name)
