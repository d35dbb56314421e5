"""``DatasetMixin``: turn a ``get_example(i)`` method into full dataset indexing.

Example:
    >>> from chainlet.dataset import DatasetMixin
    >>> class Squares(DatasetMixin):
    ...     def __len__(self):
    ...         return 5
    ...     def get_example(self, i):
    ...         return i * i
    >>> d = Squares()
    >>> d[2], d[-1], d[1:4], d[[0, 2]]
    (4, 16, [1, 4, 9], [0, 4])
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy


def check_index(owner: str, index: Any, length: int) -> int:
    """Return ``index`` as a non-negative int, or raise ``IndexError`` naming ``owner``.

    Args:
        owner: Name of the dataset, used in the message.
        index: An integer index (negative counts from the end).
        length: Length of the dataset.

    Returns:
        The index in ``range(length)``.
    """
    if isinstance(index, (bool, numpy.bool_)) or not isinstance(index, numbers.Integral):
        raise TypeError(f'{owner}: index must be an int, a slice, a list or an integer array, '
                        f'got {type(index).__name__}')
    i = int(index)
    if i < -length or i >= length:
        raise IndexError(f'{owner}: index {i} is out of range for a dataset of length {length}')
    return i + length if i < 0 else i


def is_batch_index(index: Any) -> bool:
    """True for the index kinds that select several examples: slice, list or 1-d array."""
    return isinstance(index, (slice, list)) or (
        isinstance(index, numpy.ndarray) and index.ndim > 0) or (
        hasattr(index, '__cuda_array_interface__') and getattr(index, 'ndim', 0) > 0)


def batch_positions(owner: str, index: Any, length: int) -> list[int]:
    """Expand a slice, list or integer array into the list of non-negative positions it selects.

    Boolean masks are accepted as in NumPy; every position is range-checked with
    :func:`check_index`.
    """
    if isinstance(index, slice):
        return list(range(*index.indices(length)))
    if hasattr(index, '__cuda_array_interface__'):
        index = index.get()
    array = numpy.asarray(index)
    if array.dtype == numpy.bool_:
        if array.shape != (length,):
            raise IndexError(f'{owner}: a boolean index must have shape ({length},), '
                             f'got {array.shape}')
        return [int(i) for i in numpy.flatnonzero(array)]
    if array.size == 0:
        return []
    if array.ndim != 1 or array.dtype.kind not in 'iu':
        raise TypeError(f'{owner}: a batch index must be a 1-d list or array of ints, '
                        f'got {array.ndim}-d {array.dtype}')
    return [check_index(owner, i, length) for i in array.tolist()]


class DatasetMixin:
    """Base class of datasets that compute one example at a time.

    A subclass implements ``__len__`` and ``get_example(i)``; this class adds ``__getitem__``
    for an int (negative counts from the end), a slice, or a list/array of indices (those
    return a list of examples). An out-of-range index raises ``IndexError`` naming the dataset
    class and the index.
    """

    def __getitem__(self, index: Any) -> Any:
        name = type(self).__name__
        if is_batch_index(index):
            return [self.get_example(i) for i in batch_positions(name, index, len(self))]
        return self.get_example(check_index(name, index, len(self)))

    def __len__(self) -> int:
        raise NotImplementedError

    def get_example(self, i: int) -> Any:
        """Return the ``i``-th example, ``0 <= i < len(self)`` (implemented by subclasses)."""
        raise NotImplementedError
