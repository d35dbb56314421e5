"""Saving and loading serializable objects as HDF5 files (needs the optional ``h5py``).

Install the extra with ``pip install "chainlet[hdf5]"``. The layout is Chainer's: one HDF5 group
per child (``l1``), one dataset per value (``l1/W``); ``None`` is stored as an empty dataset.

Example:
    >>> import os, tempfile, numpy as np, chainlet
    >>> from chainlet import serializers
    >>> import pytest; _ = pytest.importorskip('h5py')  # the example needs h5py
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.W = chainlet.Parameter(np.ones((2, 2), np.float32))
    >>> path = os.path.join(tempfile.mkdtemp(), 'link.h5')
    >>> serializers.save_hdf5(path, link)
    >>> link.W.array[...] = 0
    >>> serializers.load_hdf5(path, link)
    >>> float(link.W.array.sum())
    4.0
"""
from __future__ import annotations

import contextlib
import importlib.util
import os
from typing import IO, Any, Iterator, Optional, Union

import numpy

from chainlet.serializers._base import (
    _NONE, CorruptFileError, IgnoreNames, Serializer, _ArchiveDeserializer, atomic_path,
    describe_file, is_none_array, is_path, optional_module, to_storable)

FileLike = Union[str, os.PathLike, IO[bytes]]


# Whether h5py is installed (Chainer's flag; found without importing it).
_available = importlib.util.find_spec('h5py') is not None


def _h5py(what: str) -> Any:
    return optional_module('h5py', 'hdf5', what)


class HDF5Serializer(Serializer):
    """Serializer that writes values into an HDF5 group (``h5py.File`` or ``h5py.Group``).

    Args:
        group: The group to write into; children become sub-groups.
        compression: gzip level (0-9) for arrays of more than one element.
    """

    def __init__(self, group: Any, compression: Optional[int] = 4) -> None:
        self._h5py = _h5py('HDF5Serializer')
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> 'HDF5Serializer':
        return HDF5Serializer(self.group.require_group(key.strip('/')), self.compression)

    def __call__(self, key: str, value: Any) -> Any:
        h5py = self._h5py
        key = key.lstrip('/')
        arr = to_storable(key, value, 'HDF5Serializer')
        compression = None
        dtype = None
        if is_none_array(arr):
            data = h5py.Empty('f')
        elif arr.dtype.kind == 'U':  # HDF5 has no fixed-width unicode: use UTF-8 strings
            data = arr.astype(object)
            dtype = h5py.string_dtype()
        else:
            data = arr
            compression = None if arr.size <= 1 or not self.compression else self.compression
        if key in self.group:
            del self.group[key]
        self.group.create_dataset(key, data=data, dtype=dtype, compression=compression)
        return value


class HDF5Deserializer(_ArchiveDeserializer):
    """Deserializer that reads values from an HDF5 group written by :class:`HDF5Serializer`.

    It follows the same rules as :class:`~chainlet.serializers.NpzDeserializer`.

    Args:
        group: ``h5py.File`` or ``h5py.Group`` to read from.
        strict: If ``True``, a missing key raises ``KeyError``; otherwise ``value`` is returned.
        path: Prefix (sub-group) of the keys to read, e.g. ``'predictor/'`` (keyword only:
            Chainer's constructor has ``group`` and ``strict`` alone).
        ignore_names: Keys (full, with ``path``) or predicates on keys to skip (keyword only).
    """

    _what = 'HDF5Deserializer'

    def __init__(self, group: Any, strict: bool = True, *, path: str = '',
                 ignore_names: IgnoreNames = None) -> None:
        self._h5py = _h5py('HDF5Deserializer')
        self._root = group  # keys are read by their full path from here
        self._setup(path, strict, ignore_names, repr(getattr(group, 'name', 'the group')))

    def _has(self, key: str) -> bool:
        try:
            return isinstance(self._root.get(key), self._h5py.Dataset)
        except (OSError, RuntimeError, ValueError, KeyError):
            return False

    def _read(self, key: str) -> Any:
        try:
            dataset = self._root[key]
            if dataset.shape is None:
                return _NONE
            data = dataset[()]
        except (OSError, RuntimeError, ValueError, KeyError) as e:
            raise CorruptFileError(f'{self._what}: dataset {key!r} of {self._state.source} '
                                   f'cannot be read (truncated or corrupted file?): {e}') from e
        return numpy.asarray(data)

    def _stored_keys(self) -> list:
        keys: list = []

        def visit(name: str, obj: Any) -> None:
            if isinstance(obj, self._h5py.Dataset):
                keys.append(name)

        self._root.visititems(visit)
        return keys

    @property
    def group(self) -> Any:
        """The HDF5 group this deserializer reads (the sub-group of a child, as Chainer's
        ``deserializer['x'].group``); ``None`` when the file has no such group."""
        path = self.path.strip('/')
        return self._root.get(path) if path else self._root


def save_hdf5(filename: FileLike, obj: Any, compression: Optional[int] = 4) -> None:
    """Save the values of ``obj`` to an HDF5 file (atomically when ``filename`` is a path).

    The file is written to a temporary file in the same folder, flushed to disk and renamed over
    ``filename``; if serialization or writing fails, the previous file is left intact.

    Args:
        filename: A path or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        compression: gzip level (0-9) for arrays of more than one element; ``None`` or 0 for
            none.
    """
    h5py = _h5py('save_hdf5')
    if is_path(filename):
        with atomic_path(filename) as tmp:
            with h5py.File(tmp, 'w') as f:
                obj.serialize(HDF5Serializer(f, compression))
    else:
        with h5py.File(filename, 'w') as f:
            obj.serialize(HDF5Serializer(f, compression))


@contextlib.contextmanager
def _open_hdf5(filename: FileLike, what: str) -> Iterator[Any]:
    h5py = _h5py(what)
    try:
        f = h5py.File(filename, 'r')
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (OSError, ValueError) as e:
        if is_path(filename) and not os.path.exists(filename):
            raise
        raise CorruptFileError(f'{what}: the file is not a readable HDF5 file (truncated or '
                               f'corrupted?): {e}') from e
    try:
        yield f
    finally:
        f.close()


def load_hdf5(filename: FileLike, obj: Any, path: str = '', strict: bool = True,
              ignore_names: IgnoreNames = None) -> None:
    """Load the values of ``obj`` from an HDF5 file written by :func:`save_hdf5`.

    Keys are checked as in :func:`~chainlet.serializers.load_npz`: with ``strict=True`` one
    ``KeyError`` lists all missing and unexpected keys and no existing array is modified.

    Args:
        filename: A path or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        path: Sub-tree (group path) to load, e.g. ``'predictor/'``.
        strict: Check that the keys match; ``False`` skips missing and extra keys.
        ignore_names: Keys (full, with ``path``) or predicates ``f(key) -> bool`` to skip.
    """
    source = describe_file(filename)
    what = f'load_hdf5({source})'
    with _open_hdf5(filename, what) as f:
        d = HDF5Deserializer(f, path=path, strict=strict, ignore_names=ignore_names)
        d._state.source = source
        d._run_session(obj, what)
