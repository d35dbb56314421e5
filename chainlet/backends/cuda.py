"""Chainer's ``chainer.backends.cuda`` (alias ``chainer.cuda``), with or without CuPy.

Chainer code touches this module everywhere, also on machines without a GPU: ``xp is
cuda.cupy``, ``isinstance(x, cuda.ndarray)``, ``cuda.to_cpu(x)``, ``@cuda.memoize()``,
``cuda.elementwise(...)`` inside ``forward_gpu``. So, as in Chainer, every name exists whether or
not CuPy is installed:

- With CuPy and a visible GPU, ``available`` is True and ``cupy``, ``cupyx``, ``ndarray``,
  ``Device``, ``Event``, ``Stream``, ``cuda`` (``cupy.cuda``), ``memory_pool`` and
  ``pinned_memory_pool`` are CuPy's own.
- Without, ``available`` is False, ``cupy`` is a placeholder object (``xp is cuda.cupy`` is
  False for NumPy; its ``ndarray`` is the dummy class below, any other attribute raises
  ``AttributeError`` saying that CuPy is not installed), ``ndarray`` and ``Device`` are dummy
  classes (``isinstance(x, cuda.ndarray)`` is False, ``with cuda.Device(0):`` does nothing),
  ``to_gpu`` and ``check_cuda_available`` raise ``RuntimeError`` with installation advice,
  ``memoize`` and ``fuse`` leave functions as they are, and ``elementwise``/``reduce``/``raw``
  return kernels that raise only when called.

Those names are resolved on every access (a module ``__getattr__``), not once at import, so the
module follows CuPy being imported later, or replaced by the CPU stand-in of
``tools/cupy_emulator``. cuDNN is never used by chainlet: ``cudnn_enabled`` is False and
``should_use_cudnn`` answers False. New code should use :mod:`chainlet.backend`.

Example:
    >>> import numpy as np
    >>> from chainlet.backends import cuda
    >>> x = np.zeros(2)
    >>> cuda.to_cpu(x) is x, cuda.get_array_module(x) is np
    (True, True)
    >>> isinstance(x, cuda.ndarray), cuda.get_device_from_array(x) is cuda.DummyDevice
    (False, True)
"""
from __future__ import annotations

import contextlib
import functools
import sys
import warnings
from types import ModuleType
from typing import Any, Callable

import numpy

from chainlet import _config
from chainlet import backend
from chainlet._devices import GpuDevice
from chainlet.backend import get_array_module, gpu_available, import_cupy  # noqa: F401

cudnn_enabled = False
cudnn = None  # chainlet does not bind cuDNN (CuPy 14 removed its cuDNN module)
_integer_types = (int, numpy.integer)


# -- what stands in for CuPy when it is missing --

class _DummyNdarray:
    """Stands for ``cupy.ndarray`` when CuPy is not installed: no object is an instance of it.

    (Not bound to the module name ``ndarray``, which the module ``__getattr__`` answers.)
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError(f'cuda.ndarray: CuPy is not installed; {backend._INSTALL_HINT}')


_DummyNdarray.__name__ = _DummyNdarray.__qualname__ = 'ndarray'


class _DummyCudaDevice:
    """Stands for ``cupy.cuda.Device`` when CuPy is not installed: a context that does nothing
    (as in Chainer, so ``with cuda.Device(n):`` blocks run on the CPU)."""

    def __init__(self, device: Any = None) -> None:
        self.id = -1 if device is None else int(device)

    def __enter__(self) -> '_DummyCudaDevice':
        return self

    def __exit__(self, *exc_info: Any) -> None:
        pass

    def use(self) -> None:
        pass

    def synchronize(self) -> None:
        pass


class _DummyStream:
    """Stands for ``cupy.cuda.Stream`` when CuPy is not installed."""

    null = None


class _DummyEvent:
    """Stands for ``cupy.cuda.Event`` when CuPy is not installed."""


class _Missing:
    """What ``cuda.cupy`` / ``cuda.cupyx`` are without CuPy: any attribute but ``ndarray``
    raises ``AttributeError`` naming the attribute and how to install CuPy."""

    ndarray = _DummyNdarray

    def __init__(self, name: str) -> None:
        object.__setattr__(self, '_name', name)

    def __getattr__(self, attr: str) -> Any:
        raise AttributeError(f'cuda.{self._name}.{attr}: CuPy is not installed; '
                             f'{backend._INSTALL_HINT}')

    def __repr__(self) -> str:
        return f'<{self._name} placeholder: CuPy is not installed>'


_MISSING_CUPY = _Missing('cupy')
_MISSING_CUPYX = _Missing('cupyx')
_probed = False
_import_error: BaseException | None = None


def _cupy() -> ModuleType | None:
    """CuPy if it is imported or importable, else None; a failed import is tried only once."""
    global _probed, _import_error
    module = sys.modules.get('cupy')
    if module is None and 'cupy' in sys.modules:
        return None  # blocked on purpose (sys.modules['cupy'] = None); do not remember it
    if module is None and not _probed:
        _probed = True
        try:
            import cupy
            module = cupy
        except Exception as e:  # not installed, or its CUDA libraries fail to load
            _import_error = e
            module = None
    return module


def _available() -> bool:
    return _cupy() is not None and backend.device_count() > 0


def __getattr__(name: str) -> Any:
    # Module attributes that depend on CuPy (see the module docstring).
    if name == 'available':
        return _available()
    module = _cupy()
    if name == 'cupy':
        return _MISSING_CUPY if module is None else module
    if name == 'cupyx':
        if module is None:
            return _MISSING_CUPYX
        import cupyx
        return cupyx
    if name in ('ndarray', 'Device', 'Event', 'Stream'):
        if module is None:
            return {'ndarray': _DummyNdarray, 'Device': _DummyCudaDevice, 'Event': _DummyEvent,
                    'Stream': _DummyStream}[name]
        return module.ndarray if name == 'ndarray' else getattr(module.cuda, name)
    if module is not None:
        if name == 'cuda':
            return module.cuda
        if name == 'memory_pool':
            return module.get_default_memory_pool()
        if name == 'pinned_memory_pool':
            return module.get_default_pinned_memory_pool()
    if name == '_resolution_error':
        return _import_error
    raise AttributeError(f'module chainlet.backends.cuda has no attribute {name!r}'
                         + ('' if module is not None else ' (CuPy is not installed)'))


def __dir__() -> list[str]:
    return sorted(set(globals()) | {'available', 'cupy', 'cupyx', 'ndarray', 'Device', 'Event',
                                    'Stream'})


class _LibcudnnPlaceholder:
    """``cuda.libcudnn``: chainlet never loads cuDNN."""

    def __getattr__(self, attr: str) -> Any:
        raise AttributeError(f'cuda.libcudnn.{attr}: chainlet does not use cuDNN')


libcudnn = _LibcudnnPlaceholder()


def check_cuda_available() -> None:
    """Raise ``RuntimeError`` with installation advice unless CuPy and a GPU can be used."""
    if _cupy() is None:
        reason = '' if _import_error is None else f' ({type(_import_error).__name__}: ' \
                                                  f'{_import_error})'
        raise RuntimeError(f'CUDA environment is not correctly set up: CuPy is not '
                           f'installed{reason}; {backend._INSTALL_HINT}')
    if backend.device_count() == 0:
        raise RuntimeError('CUDA environment is not correctly set up: CuPy is installed but no '
                           'CUDA device was found')


class DummyDeviceType:
    """The CPU in the ``cupy.cuda.Device`` interface: ``id`` is -1, ``int()`` gives -1, and it is
    a context manager that does nothing. :data:`DummyDevice` is its instance.

    Example:
        >>> from chainlet.backends import cuda
        >>> int(cuda.DummyDevice), cuda.DummyDevice == cuda.DummyDeviceType()
        (-1, True)
    """

    id = -1
    device_id = -1  # so that chainlet.get_device(cuda.DummyDevice) is the CPU

    def __int__(self) -> int:
        return -1

    def __enter__(self) -> 'DummyDeviceType':
        return self

    def __exit__(self, *exc_info: Any) -> None:
        pass

    def use(self) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, DummyDeviceType)

    def __hash__(self) -> int:
        return hash(DummyDeviceType)

    def __repr__(self) -> str:
        return '<DummyDevice (CPU)>'


DummyDevice = DummyDeviceType()


# -- devices --

def get_device_from_id(device_id: int | None) -> Any:
    """The ``cupy.cuda.Device`` numbered ``device_id``; :data:`DummyDevice` for ``None`` or a
    negative id.

    Raises:
        RuntimeError: A GPU id without CuPy or without a GPU.
    """
    if device_id is not None and device_id >= 0:
        check_cuda_available()
        return _cupy().cuda.Device(int(device_id))  # type: ignore[union-attr]
    return DummyDevice


def get_device_from_array(*arrays: Any) -> Any:
    """The ``cupy.cuda.Device`` of the first CuPy array among ``arrays``, else
    :data:`DummyDevice` (NumPy arrays, scalars and Variables count as the CPU)."""
    for array in arrays:
        if backend.is_cupy_array(array) and array.device is not None:
            return array.device
    return DummyDevice


def get_device(*args: Any) -> Any:
    """Deprecated (as in Chainer): the device of the first int, CuPy array or device among
    ``args``, else :data:`DummyDevice`. Use :func:`get_device_from_id` or
    :func:`get_device_from_array`."""
    warnings.warn('get_device is deprecated. Please use get_device_from_id or '
                  'get_device_from_array instead.', DeprecationWarning, stacklevel=2)
    return _get_cuda_device(*args)


def _get_cuda_device(*args: Any) -> Any:
    for arg in args:
        if type(arg) is not bool and isinstance(arg, _integer_types):
            check_cuda_available()
            return _cupy().cuda.Device(arg)  # type: ignore[union-attr]
        if backend.is_cupy_array(arg):
            array: Any = arg  # a cupy.ndarray (is_cupy_array does not tell mypy)
            if array.device is None:
                continue
            return array.device
        if _cupy() is not None and isinstance(arg, _cupy().cuda.Device):  # type: ignore
            return arg
    return DummyDevice


def _get_device_or_current(device: Any) -> Any:
    # None (or DummyDevice) -> the current cupy.cuda.Device; a device object as is; an id.
    cupy = _cupy()
    if device is None or device is DummyDevice:
        return cupy.cuda.Device()  # type: ignore[union-attr]
    if isinstance(device, GpuDevice):
        return device.device
    if isinstance(device, cupy.cuda.Device):  # type: ignore[union-attr]
        return device
    if isinstance(device, bool) or not isinstance(device, _integer_types) or device < 0:
        raise ValueError(f'to_gpu: invalid CUDA device specifier {device!r} (expected an int '
                         f'>= 0, a cupy.cuda.Device or None)')
    return cupy.cuda.Device(int(device))  # type: ignore[union-attr]


# -- transfers --

def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """Copy an array, or the arrays of a list/tuple, to a GPU.

    Args:
        array: A NumPy or CuPy array or NumPy scalar, ``None``, or a list/tuple of those.
        device: The GPU (an int, a ``cupy.cuda.Device``, or ``None`` for the current one).
        stream: Deprecated in Chainer; the copy is made in this CUDA stream.

    Returns:
        CuPy arrays in the same structure; arrays already on that GPU are returned as they are,
        an object found twice in a list is copied once.

    Raises:
        RuntimeError: CuPy is not installed or no GPU is visible.
        TypeError: Something that is not an array (a Variable, a list element that is a list).
    """
    if stream is not None:
        warnings.warn('The stream option is deprecated in chainer.backends.cuda.to_gpu. '
                      'Please remove it.', DeprecationWarning, stacklevel=2)
    check_cuda_available()
    device = _get_device_or_current(device)
    return backend._convert_arrays(array, lambda a: _array_to_gpu(a, device, stream))


def _array_to_gpu(array: Any, device: Any, stream: Any) -> Any:
    if array is None:
        return None
    cupy = _cupy()
    if isinstance(array, numpy.generic):
        array = numpy.asarray(array)
    if isinstance(array, cupy.ndarray):  # type: ignore[union-attr]
        if array.device.id == device.id:
            return array
    elif not isinstance(array, numpy.ndarray):
        raise TypeError(f'to_gpu: the array sent to a GPU must be a numpy or cupy ndarray or a '
                        f'NumPy scalar, got {type(array).__name__}')
    with device, (contextlib.nullcontext() if stream is None else stream):
        if isinstance(array, numpy.ndarray):
            return cupy.asarray(array)  # type: ignore[union-attr]
        # A CuPy array on another GPU: copied (cupy.asarray would keep it where it is).
        return cupy.array(array, copy=True)  # type: ignore[union-attr]


def to_cpu(array: Any, stream: Any = None) -> Any:
    """Copy an array, or the arrays of a list/tuple, to host memory.

    NumPy arrays are returned as they are; NumPy and Python scalars become 0-d arrays; ``None``
    stays ``None``; an object found twice in a list is converted once.

    Raises:
        TypeError: Something that is not an array (a Variable, a string, ...).

    Example:
        >>> import numpy as np
        >>> from chainlet.backends import cuda
        >>> cuda.to_cpu(np.float32(2)), cuda.to_cpu([None, 1.5])
        (array(2., dtype=float32), [None, array(1.5)])
    """
    return backend._convert_arrays(array, lambda a: _array_to_cpu(a, stream))


def _array_to_cpu(array: Any, stream: Any = None) -> Any:
    if array is None or isinstance(array, numpy.ndarray):
        return array
    if backend.is_cupy_array(array):
        with array.device:
            return array.get(stream)
    if isinstance(array, (numpy.generic, bool, int, float, complex)):
        return numpy.asarray(array)
    raise TypeError(f'to_cpu: an array cannot be made from {type(array).__name__}; expected a '
                    f'numpy or cupy ndarray or a scalar')


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copy a CuPy array, to ``out`` or to a new array on ``out_device`` (default: the array's
    GPU).

    Raises:
        RuntimeError: CuPy is not installed or no GPU is visible.
    """
    check_cuda_available()
    cupy = _cupy()
    if out is None:
        target = array.device if out_device is None else _get_device_or_current(
            out_device.device if isinstance(out_device, GpuDevice) else out_device)
        with target:
            out = cupy.empty_like(array)  # type: ignore[union-attr]
    with array.device:
        cupy.copyto(out, array)  # type: ignore[union-attr]
    return out


# -- memoization and kernels --

_memo_caches: list[dict] = []


def memoize(for_each_device: bool = False) -> Callable[[Callable], Callable]:
    """Decorator caching a function's result per arguments (and per current GPU when
    ``for_each_device``); without CuPy it calls the function every time, as in Chainer.

    The arguments must be hashable. It is meant for kernel factories, not general caching.
    """
    def decorator(f: Callable) -> Callable:
        cache: dict = {}
        _memo_caches.append(cache)

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            cupy = _cupy()
            if cupy is None:
                return f(*args, **kwargs)
            key: tuple = (args, tuple(sorted(kwargs.items())))
            if for_each_device:
                key += (cupy.cuda.Device().id,)
            try:
                return cache[key]
            except KeyError:
                result = cache[key] = f(*args, **kwargs)
                return result
        return wrapper
    return decorator


def clear_memo() -> None:
    """Forget every result cached by :func:`memoize` (does nothing without CuPy)."""
    for cache in _memo_caches:
        cache.clear()


class _DeferredKernel:
    """A kernel defined while CuPy is not available: calling it raises the error of
    :func:`check_cuda_available`, or builds the kernel if CuPy has become available since."""

    def __init__(self, factory: Callable, name: str, args: tuple, kwargs: dict) -> None:
        self._factory, self.name, self._args, self._kwargs = factory, name, args, kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        check_cuda_available()
        return self._factory(*self._args, **self._kwargs)(*args, **kwargs)

    def __repr__(self) -> str:
        return f'<kernel {self.name!r}: CuPy is not available>'


@memoize()
def _elementwise(in_params: str, out_params: str, operation: str, name: str,
                 **kwargs: Any) -> Any:
    return _cupy().ElementwiseKernel(  # type: ignore[union-attr]
        in_params, out_params, operation, name, **kwargs)


@memoize()
def _reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
            post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> Any:
    return _cupy().ReductionKernel(  # type: ignore[union-attr]
        in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name, **kwargs)


@memoize()
def _raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    return _cupy().RawKernel(code, name, *args, **kwargs)  # type: ignore[union-attr]


def elementwise(in_params: str, out_params: str, operation: str, name: str,
                **kwargs: Any) -> Any:
    """A cached ``cupy.ElementwiseKernel`` (same arguments; ``name`` is required). Without CuPy
    the returned object raises ``RuntimeError`` when called."""
    args = (in_params, out_params, operation, name)
    if not _available():
        return _DeferredKernel(_elementwise, name, args, kwargs)
    return _elementwise(*args, **kwargs)


def reduce(in_params: str, out_params: str, map_expr: str, reduce_expr: str,
           post_map_expr: str, identity: Any, name: str, **kwargs: Any) -> Any:
    """A cached ``cupy.ReductionKernel``. Without CuPy the returned object raises when called."""
    args = (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name)
    if not _available():
        return _DeferredKernel(_reduce, name, args, kwargs)
    return _reduce(*args, **kwargs)


def raw(code: str, name: str, *args: Any, **kwargs: Any) -> Any:
    """A cached ``cupy.RawKernel``. Without CuPy the returned object raises when called."""
    if not _available():
        return _DeferredKernel(_raw, name, (code, name) + args, kwargs)
    return _raw(code, name, *args, **kwargs)


def fuse(*args: Any, **kwargs: Any) -> Any:
    """``cupy.fuse`` when CuPy is available; otherwise the function is left as it is (used
    both as ``@fuse`` and ``@fuse(...)``)."""
    cupy = _cupy()
    if cupy is not None and _available():
        try:
            cupy_fuse = cupy.fuse
        except AttributeError:  # a CuPy stand-in without fuse
            cupy_fuse = None
        if cupy_fuse is not None:
            return cupy_fuse(*args, **kwargs)
    if len(args) == 1 and not kwargs and callable(args[0]):
        return args[0]
    return lambda f: f


# -- cuDNN (never used by chainlet) --

_CUDNN_LEVELS = ('==always', '>=auto')
_CUDNN_CONFIG = ('always', 'auto', 'never')


def get_max_workspace_size() -> int:
    """cuDNN's workspace size: 0, as chainlet does not use cuDNN."""
    return 0


def set_max_workspace_size(size: int) -> None:
    """Accepted and ignored: chainlet does not use cuDNN."""


def should_use_cudnn(level: str, lowest_version: int = 0) -> bool:
    """Whether to call cuDNN: always False in chainlet (``level`` is still checked).

    Raises:
        ValueError: ``level`` is not ``'==always'`` or ``'>=auto'``.
    """
    if level not in _CUDNN_LEVELS:
        raise ValueError(f'should_use_cudnn: invalid cuDNN use level {level!r} (expected '
                         f'"==always" or ">=auto")')
    return False


def should_use_cudnn_tensor_core(dtype: Any) -> bool:
    """Whether cuDNN should use Tensor Cores: always False in chainlet.

    Raises:
        ValueError: ``config.use_cudnn_tensor_core`` is not always/auto/never.
    """
    value = _config.config.use_cudnn_tensor_core
    if value not in _CUDNN_CONFIG:
        raise ValueError(f'invalid use_cudnn_tensor_core configuration: {value!r} (expected '
                         f'"always", "auto" or "never")')
    return False


def get_cudnn_dropout_states() -> Any:
    """Raises ``RuntimeError``: cuDNN is not enabled in chainlet."""
    raise RuntimeError('cuDNN is not enabled.')
