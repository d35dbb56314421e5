"""``dataset.slice[indices, keys]``: a view of some rows and some columns.

Design: the view stores the rows as a slice (kept as given, so that a dataset reading a
contiguous block can do it in one go) or as a list of non-negative ints (masks and negative
indices are resolved once, here), and the columns as a tuple of key positions. A request to
the view is composed with these and forwarded: slice of a slice stays a slice (Python's
``range`` does the arithmetic), anything involving a list becomes a list.
"""
from __future__ import annotations

import numbers
from typing import Any, cast

import numpy

from chainlet.dataset.tabular import tabular_dataset


class _Slice(tabular_dataset.TabularDataset):

    def __init__(self, dataset: tabular_dataset.TabularDataset, indices: Any, keys: Any) -> None:
        self._dataset = dataset
        self._indices = _as_indices(indices, len(dataset), type(dataset).__name__)
        if keys is None:
            self._single = None
            self._key_indices = None
        elif isinstance(keys, (tuple, list)):
            self._single = False
            self._key_indices = tuple(_as_key_index(key, dataset.keys) for key in keys)
        else:
            self._single = True
            self._key_indices = (_as_key_index(keys, dataset.keys),)

    def __len__(self) -> int:
        if self._indices is None:
            return len(self._dataset)
        if isinstance(self._indices, slice):
            return len(range(*self._indices.indices(len(self._dataset))))
        return len(self._indices)

    @property
    def keys(self) -> tuple:
        keys = self._dataset.keys
        if self._key_indices is None:
            return keys
        return tuple(keys[k] for k in self._key_indices)

    @property
    def mode(self) -> Any:
        if self._single is None:
            return self._dataset.mode
        if self._single:
            return None
        return self._dataset.mode or tuple

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        indices = _merge_indices(self._indices, indices, len(self._dataset))
        if self._key_indices is not None and key_indices is not None:
            key_indices = tuple(self._key_indices[k] for k in key_indices)
        elif key_indices is None:
            key_indices = self._key_indices
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class _SliceHelper:
    """What ``dataset.slice`` returns; indexing it builds a :class:`_Slice` view."""

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

    def __getitem__(self, args: Any) -> _Slice:
        if isinstance(args, tuple):
            if len(args) != 2:
                raise IndexError(f'{type(self._dataset).__name__}.slice: expected [indices] or '
                                 f'[indices, keys], got {len(args)} items')
            indices, keys = args
        else:
            indices, keys = args, None
        return _Slice(self._dataset, indices, keys)


def _as_indices(indices: Any, length: int, owner: str) -> Any:
    """Rows as given for a slice, else a list of non-negative Python ints."""
    if isinstance(indices, slice):
        return indices
    if hasattr(indices, '__cuda_array_interface__'):
        indices = indices.get()
    if isinstance(indices, numpy.ndarray):
        if indices.ndim != 1:
            raise IndexError(f'{owner}.slice: row indices must be 1-d, got shape '
                             f'{indices.shape}')
        indices = indices.tolist()
    if isinstance(indices, (numbers.Integral, str)) or not hasattr(indices, '__len__'):
        raise TypeError(f'{owner}.slice: rows must be a slice, a list/array of ints or a '
                        f'boolean mask, got {type(indices).__name__}')
    indices = list(indices)
    if indices and all(isinstance(i, (bool, numpy.bool_)) for i in indices):
        if len(indices) != length:
            raise ValueError(f'{owner}.slice: a boolean mask must have one entry per row '
                             f'({length}), got {len(indices)}')
        return [i for i, keep in enumerate(indices) if keep]
    positions = []
    for i in indices:
        if not isinstance(i, numbers.Integral):
            raise ValueError(f'{owner}.slice: row index {i!r} is not an integer')
        i = int(i)
        if not -length <= i < length:
            raise IndexError(f'{owner}.slice: index {i} is out of bounds for a dataset of '
                             f'length {length}')
        positions.append(i + length if i < 0 else i)
    return positions


def _as_key_index(key: Any, keys: tuple) -> int:
    """The position of a key given by name or by (possibly negative) position."""
    if isinstance(key, numbers.Integral) and not isinstance(key, (bool, numpy.bool_)):
        # (cast: the stubs of numbers.Integral do not compare with an int on the left)
        if not -len(keys) <= cast(Any, key) < len(keys):
            raise IndexError(f'slice: key index {key} is out of bounds for keys {keys}')
        return int(key) % len(keys)
    try:
        return keys.index(key)
    except ValueError:
        raise KeyError(f'slice: no key {key!r} among {keys}') from None


def _merge_indices(outer: Any, inner: Any, base_len: int) -> Any:
    """Rows of the base dataset that row request ``inner`` of the view selects."""
    if outer is None:
        return inner
    if inner is None:
        return outer
    if isinstance(outer, slice):
        rows = range(*outer.indices(base_len))
        if isinstance(inner, slice):
            rows = rows[inner]
            if len(rows) == 0:
                return slice(0, 0, 1)
            # A negative stop of a descending range means "past index 0", which a slice
            # can only say with None.
            return slice(rows.start, None if rows.stop < 0 else rows.stop, rows.step)
        return [rows[i] for i in inner]
    if isinstance(inner, slice):
        return outer[inner]
    return [outer[i] for i in inner]
