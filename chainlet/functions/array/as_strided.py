"""``as_strided``: a view of an array's memory with any shape, strides and offset.

Strides and the offset are counted in elements ("steps"), not bytes, and the offset is measured
from the start of the memory the input is a view of (its base buffer), so the input's own view
is ignored: ``as_strided(x[::-1], (n,), (1,), 0)`` reads the buffer in memory order. Negative
strides are allowed as long as every element lies inside the buffer.

The gradient follows PyTorch's layout-agnostic rule. The output's gradient is summed into a flat
"storage" at the buffer position of each output element (elements that share memory add up);
each input element then takes the value at its position, divided by how many input elements
share that position, so that an input that overlaps itself (e.g. a broadcast) is not counted
twice. Both steps are written with ``scatter_add`` and ``get_item`` on index arrays, so the
gradient is itself differentiable. Gradients exist for float dtypes only.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import backend
from chainlet import type_check
from chainlet.function_node import FunctionNode
from chainlet.functions.array._util import check_array, check_int
from chainlet.variable import Variable


def _extent(shape: Sequence[int], strides: Sequence[int], offset: int) -> Optional[tuple]:
    """First and last buffer position (in steps) touched by a view; ``None`` if it is empty."""
    if 0 in shape:
        return None
    low = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
    high = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
    return low, high


def _root(array: Any) -> Any:
    """The ndarray that owns the memory ``array`` is a view of (NumPy)."""
    while isinstance(array.base, numpy.ndarray):
        array = array.base
    return array


def _geometry(array: Any) -> tuple:
    """``(shape, strides, offset)`` of ``array`` in steps, the offset from its base buffer."""
    itemsize = array.itemsize
    if isinstance(array, numpy.ndarray):
        start = array.__array_interface__['data'][0] - \
            _root(array).__array_interface__['data'][0]
    else:  # CuPy: the allocation the view points into
        start = array.data.ptr - array.data.mem.ptr
    if start % itemsize or any(s % itemsize for s in array.strides):
        raise ValueError('as_strided: argument x: its offset and strides are not multiples of '
                         f'its itemsize {itemsize}')
    return array.shape, tuple(s // itemsize for s in array.strides), start // itemsize


def _stride_array(array: Any, shape: Sequence[int], strides: Sequence[int],
                  storage_offset: int) -> Any:
    """View of the buffer behind ``array`` with ``shape``, ``strides`` and ``storage_offset``.

    Strides and offset are in steps (elements) and the offset counts from the start of the
    buffer, whatever view of it ``array`` is.

    Raises:
        ValueError: The view would reach before or past the buffer, or the buffer of a NumPy
            array is not contiguous.
        TypeError: ``array`` is neither a NumPy nor a CuPy array.
    """
    if isinstance(array, numpy.ndarray):
        root = _root(array)
        nbytes = root.nbytes
    elif backend.is_array(array):
        nbytes = array.data.mem.size
    else:
        raise TypeError(f'as_strided: expected a NumPy or CuPy array, got {type(array).__name__}')
    shape = tuple(int(n) for n in shape)
    strides = tuple(int(s) for s in strides)
    itemsize = array.itemsize
    extent = _extent(shape, strides, storage_offset)
    if extent is not None and extent[0] < 0:
        raise ValueError(f'as_strided: the view starts {-extent[0]} elements before the buffer '
                         f'(shape {shape}, strides {strides}, offset {storage_offset})')
    byte_strides = tuple(s * itemsize for s in strides)
    if extent is not None and (extent[1] + 1) * itemsize > nbytes:
        raise ValueError(f'as_strided: the view ends past the buffer of {nbytes // itemsize} '
                         f'elements (shape {shape}, strides {strides}, offset {storage_offset})')
    if isinstance(array, numpy.ndarray):
        if not (root.flags.c_contiguous or root.flags.f_contiguous):
            raise ValueError('as_strided: the buffer behind x is not contiguous')
        return numpy.ndarray(shape, array.dtype, buffer=root, offset=storage_offset * itemsize,
                             strides=byte_strides)
    import cupy
    memptr = cupy.cuda.MemoryPointer(array.data.mem, storage_offset * itemsize)
    return cupy.ndarray(shape, array.dtype, memptr, byte_strides)


def _positions(xp: Any, shape: Sequence[int], strides: Sequence[int], offset: int) -> Any:
    """Buffer position (in steps) of every element of a view, as an int64 array of ``shape``."""
    pos = xp.full(tuple(shape), offset, dtype=numpy.int64)
    for axis, (n, s) in enumerate(zip(shape, strides)):
        step = xp.arange(n, dtype=numpy.int64) * s
        pos += step.reshape((n,) + (1,) * (len(shape) - axis - 1))
    return pos


class AsStrided(FunctionNode):
    """View of the input's buffer with a new shape, strides and offset (all in steps)."""

    def __init__(self, shape: tuple, strides: tuple, storage_offset: Optional[int]) -> None:
        self.shape = shape
        self.strides = strides
        self.storage_offset = storage_offset

    def _check_arrays(self, in_data):
        type_check.count('as_strided', in_data, 1)

    def forward(self, inputs):
        x, = inputs
        self._in_geometry = _geometry(x)
        if self.storage_offset is None:
            self.storage_offset = self._in_geometry[2]
        return _stride_array(x, self.shape, self.strides, self.storage_offset),

    def backward(self, indexes, grad_outputs):
        from chainlet.functions.array.get_item import get_item
        from chainlet.functions.array.scatter_add import scatter_add
        gy, = grad_outputs
        if gy.dtype.kind != 'f':
            raise TypeError(f'as_strided: gradients are defined for float dtypes only, '
                            f'got {gy.dtype}')
        xp = backend.get_array_module(gy)
        in_shape, in_strides, in_offset = self._in_geometry
        out_pos = _positions(xp, self.shape, self.strides, self.storage_offset)
        in_pos = _positions(xp, in_shape, in_strides, in_offset)
        if in_pos.size == 0:
            return Variable(xp.zeros(in_shape, gy.dtype)),
        low = min(int(in_pos.min()), int(out_pos.min()) if out_pos.size else 0)
        size = max(int(in_pos.max()), int(out_pos.max()) if out_pos.size else 0) - low + 1
        in_pos -= low
        storage = scatter_add(xp.zeros(size, gy.dtype), out_pos - low, gy)
        count = xp.bincount(in_pos.ravel(), minlength=size).astype(gy.dtype)
        return get_item(storage, in_pos) / count[in_pos],


def as_strided(x: Any, shape: Sequence[int], strides: Sequence[int],
               storage_offset: Optional[int] = None) -> Variable:
    """A view of the memory of ``x`` with the given shape, strides and offset.

    Unlike ``numpy.lib.stride_tricks.as_strided``, ``strides`` and ``storage_offset`` are in
    elements, and the offset counts from the start of the buffer that ``x`` is a view of (the
    view ``x`` itself is ignored). The result shares memory with ``x``: writing to either
    changes the other.

    Args:
        x: Variable or NumPy/CuPy array.
        shape: Shape of the result.
        strides: Distance in elements between neighbours along each axis (may be zero or
            negative).
        storage_offset: Position of the first element in the buffer; ``None`` keeps that of
            ``x``.

    Returns:
        Variable of ``shape`` and the dtype of ``x``. Where output elements share memory their
        gradients add up; where input elements share memory the sum is split evenly among them.

    Raises:
        ValueError: The view would reach outside the buffer of ``x``.

    Example:
        >>> import numpy as np, chainlet, chainlet.functions as F
        >>> x = chainlet.Variable(np.arange(4, dtype=np.float32))
        >>> y = F.as_strided(x, (3, 2), (1, 1), 0)
        >>> y.array
        array([[0., 1.],
               [1., 2.],
               [2., 3.]], dtype=float32)
        >>> y.grad = np.ones((3, 2), np.float32)
        >>> y.backward()
        >>> x.grad
        array([1., 2., 2., 1.], dtype=float32)
    """
    check_array('as_strided', 'x', x)
    shape = tuple(check_int('as_strided', 'shape', n) for n in shape)
    strides = tuple(check_int('as_strided', 'strides', s) for s in strides)
    if len(strides) != len(shape):
        raise ValueError(f'as_strided: argument strides: expected {len(shape)} strides (one per '
                         f'axis of shape {shape}), got {strides}')
    if any(n < 0 for n in shape):
        raise ValueError(f'as_strided: argument shape: expected non-negative sizes, got {shape}')
    if storage_offset is not None:
        storage_offset = check_int('as_strided', 'storage_offset', storage_offset)
    return AsStrided(shape, strides, storage_offset).apply((x,))[0]
