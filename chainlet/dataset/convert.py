"""Turn a list of examples into batched arrays: ``concat_examples`` and ``to_device``.

Example:
    >>> import numpy as np
    >>> from chainlet.dataset import concat_examples
    >>> batch = [(np.array([1, 2]), 0), (np.array([3, 4]), 1)]
    >>> x, t = concat_examples(batch)
    >>> x
    array([[1, 2],
           [3, 4]])
    >>> t
    array([0, 1])
"""
from __future__ import annotations

import contextlib
import functools
from typing import Any

import numpy

from chainlet import backend


def to_device(device: Any, x: Any) -> Any:
    """Send an array (or a list/tuple of arrays) to ``device``.

    Args:
        device: ``None`` leaves ``x`` where it is; otherwise any spec that
            :func:`chainlet.backend.parse_device_spec` accepts: ``-1``, ``'@numpy'`` or
            ``'cpu'`` for the CPU, a GPU id ``N``, ``'@cupy:N'`` or ``'cuda:N'`` for a GPU.
        x: An array, or a list or tuple of arrays.

    Returns:
        ``x`` on the requested device (the same object when it is already there).

    Example:
        >>> import numpy as np
        >>> from chainlet.dataset import to_device
        >>> a = np.zeros(2)
        >>> to_device(None, a) is a, to_device('@numpy', a) is a
        (True, True)
    """
    if device is None:
        return x
    device_id = backend.parse_device_spec(device)
    if device_id < 0:
        return backend.to_cpu(x)
    return backend.to_gpu(x, device_id)


def _is_array(x: Any) -> bool:
    return backend.is_array(x)


def _concat_arrays(arrays: list, padding: Any) -> Any:
    if not _is_array(arrays[0]):
        # Python numbers, NumPy scalars and lists become one NumPy array directly.
        stacked = numpy.asarray(arrays)
        if padding is None:
            return stacked
        arrays = list(stacked)
    xp = backend.get_array_module(arrays[0])
    if padding is None:
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise ValueError(f'concat_examples: the examples have different shapes '
                             f'{sorted(shapes)}; pass padding= to pad them to a common shape')
        return xp.stack(arrays)
    ndims = {a.ndim for a in arrays}
    if len(ndims) > 1:
        raise ValueError(f'concat_examples: padding needs examples of the same number of '
                         f'dimensions, got {sorted(ndims)}')
    shape = numpy.max([a.shape for a in arrays], axis=0) if arrays[0].ndim else ()
    result = xp.full((len(arrays),) + tuple(int(s) for s in shape), padding,
                     dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        result[(i,) + tuple(slice(s) for s in a.shape)] = a
    return result


def _concat_arrays_with_padding(arrays: list, padding: Any) -> Any:
    """Stack ``arrays`` padded with ``padding`` to their largest shape (Chainer's private helper,
    imported by libraries built on Chainer, e.g. Chainer Chemistry's converters).

    Example:
        >>> import numpy as np
        >>> from chainlet.dataset.convert import _concat_arrays_with_padding
        >>> _concat_arrays_with_padding([np.array([1, 2]), np.array([3])], -1)
        array([[ 1,  2],
               [ 3, -1]])
    """
    return _concat_arrays(arrays, padding)


def concat_examples_func(batch: list, device: Any = None, padding: Any = None) -> Any:
    """Concatenate a list of examples into batched arrays.

    ``concat_examples`` is this function wrapped as a :class:`Converter` (as in Chainer 7):
    the same call, and ``isinstance(concat_examples, Converter)`` holds.

    The examples' structure decides the result: tuples give a tuple of arrays (one per
    position), dicts give a dict of arrays (one per key), and arrays or numbers give one array.
    Each array has a new leading batch axis.

    Args:
        batch: A non-empty list of examples, as an iterator returns.
        device: Where to put the result (see :func:`to_device`); ``None`` keeps the arrays on
            the device the examples are on. A GPU is used only when asked for.
        padding: ``None`` requires all examples to have the same shape. Otherwise a value
            used to pad every array to the largest shape along each axis; for tuple or dict
            examples it may be a tuple or dict giving one value per position or key.

    Returns:
        A tuple, a dict or an array, matching the structure of the examples.

    Example:
        >>> import numpy as np
        >>> from chainlet.dataset import concat_examples
        >>> batch = [{'x': np.array([1, 2, 3])}, {'x': np.array([4])}]
        >>> concat_examples(batch, padding=-1)['x']
        array([[ 1,  2,  3],
               [ 4, -1, -1]])
    """
    if not isinstance(batch, (list, tuple)) and not _is_array(batch):
        # Any sequence of examples works, as in Chainer: a dataset, a SubDataset, ...
        if not (hasattr(batch, '__len__') and hasattr(batch, '__getitem__')):
            raise TypeError(f'concat_examples: batch must be a sequence of examples, '
                            f'got {type(batch).__name__}')
        batch = [batch[i] for i in range(len(batch))]
    if len(batch) == 0:
        raise ValueError('concat_examples: batch is empty')
    first = batch[0]
    if isinstance(first, tuple):
        n = len(first)
        paddings: Any = padding if isinstance(padding, tuple) else (padding,) * n
        if len(paddings) != n:
            raise ValueError(f'concat_examples: padding has {len(paddings)} entries but the '
                             f'examples have {n}')
        for example in batch:
            if not isinstance(example, tuple) or len(example) != n:
                raise ValueError(f'concat_examples: every example must be a tuple of length '
                                 f'{n}, got {example!r:.60}')
        return tuple(to_device(device, _concat_arrays([e[i] for e in batch], paddings[i]))
                     for i in range(n))
    if isinstance(first, dict):
        paddings = padding if isinstance(padding, dict) else {k: padding for k in first}
        result = {}
        for key in first:
            try:
                values = [e[key] for e in batch]
            except KeyError:
                raise ValueError(f'concat_examples: key {key!r} of the first example is missing '
                                 f'in another one') from None
            result[key] = to_device(device, _concat_arrays(values, paddings.get(key)))
        return result
    return to_device(device, _concat_arrays(list(batch), padding))


class Converter:
    """Base class of converters: ``converter(batch, device)`` turns a list of examples into
    the arrays a model takes (Chainer 7's ``chainer.dataset.Converter``).

    Subclasses implement ``__call__(batch, device)``; :func:`converter` makes one from a
    function.
    """

    def __call__(self, batch: list, device: Any = None) -> Any:
        raise NotImplementedError(f'{type(self).__name__} does not implement __call__')


def _as_device(device_spec: Any) -> Any:
    if device_spec is None:
        return None
    from chainlet import _devices
    return _devices.get_device(device_spec)


def _call_converter(converter: Any, batch: Any, device: Any) -> Any:
    """Call ``converter(batch, device)`` the way Chainer 7's updaters and evaluators do.

    A :class:`Converter` (``concat_examples``, or one made with :func:`converter`) gets the
    device as given; it turns any device spec into a device object itself. A plain function is
    an old-style converter: it gets the legacy integer id (``-1`` for the CPU, the GPU number),
    or ``None``, since such functions were written against ``to_device(int, x)``.
    """
    if device is None or isinstance(converter, Converter):
        return converter(batch, device)
    return converter(batch, _legacy_device_id(device))


def _legacy_device_id(device: Any) -> Any:
    if isinstance(device, (int, numpy.integer)) and not isinstance(device, bool):
        return int(device)
    device_id = getattr(_as_device(device), 'device_id', None)
    return device if device_id is None else device_id


class _FunctionConverter(Converter):
    # The function's, set by update_wrapper (and renamed for concat_examples below).
    __name__: str
    __qualname__: str

    def __init__(self, func: Any) -> None:
        self.base_callable = func
        functools.update_wrapper(self, func)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) >= 2:
            args = (args[0], _as_device(args[1])) + tuple(args[2:])
        elif 'device' in kwargs:
            kwargs['device'] = _as_device(kwargs['device'])
        return self.base_callable(*args, **kwargs)


def converter() -> Any:
    """Decorator that makes a :class:`Converter` of a function ``f(batch, device, ...)``.

    The ``device`` argument reaches the function as a device object (with ``xp`` and
    ``send``), or ``None``, whatever spec the caller passed (``-1``, ``'@numpy'``, a GPU id,
    a device object), as with Chainer 7's ``@chainer.dataset.converter()``.

    Example:
        >>> import numpy as np
        >>> from chainlet.dataset import converter
        >>> @converter()
        ... def convert(batch, device):
        ...     return device.send(np.stack(batch))
        >>> convert([np.zeros(2), np.ones(2)], -1).shape
        (2, 2)
    """
    def wrap(func: Any) -> Converter:
        return _FunctionConverter(func)
    return wrap


# Chainer 7's ``concat_examples`` is a converter object around the plain function: updaters and
# evaluators then pass it the device as given (no legacy integer id), and code that checks
# ``isinstance(c, Converter)`` or reads ``c.base_callable`` sees what it sees in Chainer.
concat_examples = _FunctionConverter(concat_examples_func)
concat_examples.__name__ = concat_examples.__qualname__ = 'concat_examples'


def _device_id(device: Any) -> Any:
    return None if device is None else backend.parse_device_spec(device)


def _on_gpu(device_id: Any) -> Any:
    """The CuPy device context for a GPU id; a no-op context for the host or ``None``."""
    if device_id is None or device_id < 0:
        return contextlib.nullcontext()
    return backend.import_cupy().cuda.Device(device_id)


class Conveyor:
    """Double-buffered asynchronous transfer of host arrays to one GPU.

    :meth:`put` starts copying an array to the device and :meth:`get` returns the device
    array, in the same order. The array is first copied into page-locked (pinned) host memory,
    from which the GPU can copy without the CPU waiting, on ``stream``. Two pinned buffers and
    two device arrays are kept and reused while the arrays keep their shape and dtype, so the
    next batch can be copied while the current one is still in use on the device; hence at
    most two arrays may be put and not yet taken with :meth:`get` (a third put reuses the
    first buffer).

    Without a GPU device or a stream it only sends the array (synchronously) where
    :func:`to_device` would.

    Args:
        device: The target device (a GPU id or any device spec; ``None`` leaves arrays where
            they are, a negative id means the host).
        stream: The ``cupy.cuda.Stream`` of the copies; ``None`` copies synchronously.

    Example:
        >>> import numpy as np
        >>> c = Conveyor()           # no device: the array is handed back as it is
        >>> c.put(np.arange(3))
        >>> c.get()
        array([0, 1, 2])
    """

    def __init__(self, device: Any = None, stream: Any = None) -> None:
        self._device = _device_id(device)
        self._stream = stream
        self._buffers: list[tuple[Any, Any]] = [(None, None), (None, None)]
        self._results: list[Any] = []

    def _asynchronous(self) -> bool:
        return self._device is not None and self._device >= 0 and self._stream is not None

    def put(self, array: Any) -> None:
        """Start sending the host array ``array`` to the device."""
        if not self._asynchronous():
            self._results.append(to_device(self._device, array))
            return
        cupy = backend.import_cupy()
        pinned, on_device = self._buffers.pop(0)
        if pinned is not None and (pinned.shape != array.shape or pinned.dtype != array.dtype):
            pinned = None
        with cupy.cuda.Device(self._device):
            if pinned is None:
                # Buffers are about to be freed and reallocated while other streams may still
                # read them: wait for all work on the device first.
                cupy.cuda.runtime.deviceSynchronize()
                memory = cupy.cuda.alloc_pinned_memory(array.nbytes)
                pinned = numpy.frombuffer(memory, array.dtype, array.size).reshape(array.shape)
                on_device = cupy.empty(array.shape, array.dtype)
            pinned[...] = array               # pageable -> pinned host memory
            on_device.set(pinned, self._stream)  # pinned host memory -> device, asynchronously
        self._buffers.append((pinned, on_device))
        self._results.append(on_device)

    def get(self, sync: bool = True) -> Any:
        """The device array of the oldest :meth:`put`.

        Args:
            sync: Wait until every copy to the device has finished. With ``False`` the caller
                synchronizes (e.g. with a CUDA event) before kernels read the array.
        """
        if self._asynchronous() and sync:
            backend.import_cupy().cuda.runtime.deviceSynchronize()
        return self._results.pop(0)


class ConcatWithAsyncTransfer:
    """A converter that concatenates a batch and sends it to the GPU asynchronously.

    Use it as an updater's ``converter`` so that the next batch is copied to the GPU while the
    current one is being computed. Its results are those of :func:`concat_examples`; only
    arrays that are new per batch are copied, through one :class:`Conveyor` per position (or
    key) of the examples.

    Args:
        stream: The ``cupy.cuda.Stream`` of the copies; one is created (non-blocking) at the
            first call when a GPU is the target.
        compute_stream: The stream the model computes on. If given, CUDA events order the
            copies and the kernels, without synchronizing the whole device; otherwise
            :meth:`Conveyor.get` synchronizes the device.

    Example:
        >>> import numpy as np
        >>> convert = ConcatWithAsyncTransfer()
        >>> x, t = convert([(np.zeros(2), 0), (np.ones(2), 1)])   # no device: as concat_examples
        >>> x.shape, t.tolist()
        ((2, 2), [0, 1])
    """

    def __init__(self, stream: Any = None, compute_stream: Any = None) -> None:
        self._stream = stream
        self.compute_stream = compute_stream
        self._device: Any = None
        self._started = False
        self._conveyors: dict = {}
        if compute_stream is not None:
            cupy = backend.import_cupy()
            # event1: the host must not refill arrays that kernels may still be reading;
            # event2: kernels must not read arrays that are still being copied.
            self._event1 = cupy.cuda.Event()
            self._event2 = cupy.cuda.Event()
        self._sync_get = compute_stream is None

    def _conveyor(self, key: Any) -> Conveyor:
        if key not in self._conveyors:
            self._conveyors[key] = Conveyor(self._device, self._stream)
        return self._conveyors[key]

    def __call__(self, batch: list, device: Any = None, padding: Any = None) -> Any:
        """Concatenate ``batch`` (see :func:`concat_examples`) and send it to ``device``.

        Raises:
            ValueError: ``batch`` is empty, or ``device`` differs from that of the first call.
        """
        if not batch:
            raise ValueError('ConcatWithAsyncTransfer: batch is empty')
        device = _device_id(device)
        if not self._started:
            self._started = True
            self._device = device  # fixed by the first call
            if device is not None and device >= 0 and self._stream is None:
                cupy = backend.import_cupy()
                with cupy.cuda.Device(device):
                    self._stream = cupy.cuda.Stream(non_blocking=True)
        if device != self._device:
            raise ValueError(f'ConcatWithAsyncTransfer: argument device: expected the device '
                             f'of the first call ({self._device}), got {device}')
        first = batch[0]
        if not isinstance(first, (tuple, dict)):
            return to_device(device, _concat_arrays(list(batch), padding))
        if self.compute_stream is not None:
            self._event1.synchronize()
            self._event1.record(stream=self.compute_stream)
        if isinstance(first, tuple):
            keys: Any = range(len(first))
            paddings: Any = padding if isinstance(padding, tuple) else [padding] * len(first)
        else:
            keys = list(first)
            paddings = padding if isinstance(padding, dict) else {k: padding for k in first}
        with _on_gpu(device):
            for key in keys:
                self._conveyor(key).put(_concat_arrays([e[key] for e in batch], paddings[key]))
            values = [self._conveyor(key).get(sync=self._sync_get) for key in keys]
            if self.compute_stream is not None:
                self._event2.record(stream=self._stream)
                self.compute_stream.wait_event(self._event2)
        return tuple(values) if isinstance(first, tuple) else dict(zip(keys, values))
