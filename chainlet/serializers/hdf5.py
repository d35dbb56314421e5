"""Saving and loading serializable objects as HDF5 files (needs the optional ``h5py``).

Install the extra with ``pip install "chainlet-dl[hdf5]"``. The layout is Chainer's: one HDF5 group
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
import uuid
from typing import IO, Any, Callable, Iterator, Optional, Union

import numpy

from chainlet.serializers._base import (
    _NONE, CorruptFileError, IgnoreNames, Serializer, UnsafeFileError, _ArchiveDeserializer,
    atomic_path, describe_file, is_none_array, is_path, optional_module, to_storable)

FileLike = Union[str, os.PathLike, IO[bytes]]


# Whether h5py is installed (Chainer's flag; found without importing it).
_available = importlib.util.find_spec('h5py') is not None

# How much larger than the file its datasets may be. Deflate, HDF5's usual filter, expands at
# most about 1032-fold; an unfiltered dataset holds its bytes in the file (or is a fill value,
# which the slack covers for small arrays). A header that claims more is refused before NumPy
# is asked to allocate it.
_MAX_EXPANSION = 1100
_SLACK_BYTES = 1 << 20


def _h5py(what: str) -> Any:
    return optional_module('h5py', 'hdf5', what)


def _file_size(file: Any) -> int:
    if is_path(file):
        return os.path.getsize(file)
    position = file.tell()
    try:
        return file.seek(0, os.SEEK_END)
    finally:
        file.seek(position)


def check_dataset(dataset: Any, source: str, what: str) -> None:
    """Refuse a dataset whose data lies outside the file or that NumPy cannot hold safely.

    External storage (raw data in other files) and virtual datasets (mappings onto datasets of
    other files) would let a downloaded file read any local file into a model's weights.
    """
    name = dataset.name
    if dataset.external:
        files = [entry[0].decode() if isinstance(entry[0], bytes) else str(entry[0])
                 for entry in dataset.external]
        raise UnsafeFileError(f'{what}: dataset {name!r} of {source} stores its data in other '
                              f'files ({files}); external storage is refused (a model file '
                              f'must not read other files)')
    if dataset.is_virtual:
        raise UnsafeFileError(f'{what}: dataset {name!r} of {source} is a virtual dataset '
                              f'(a view of other datasets or files), which is refused')
    dtype = dataset.dtype
    if dtype.kind not in 'biufcSU' and not (
            dtype.kind == 'O' and _h5py(what).check_string_dtype(dtype) is not None):
        raise CorruptFileError(f'{what}: dataset {name!r} of {source} has dtype {dtype}, '
                               f'which no chainlet file holds (numbers, bool and strings)')
    if dataset.shape is None:
        return
    nbytes = int(numpy.prod(dataset.shape, dtype=object)) * dtype.itemsize
    stored = dataset.id.get_storage_size()
    filtered = dataset.id.get_create_plist().get_nfilters() > 0  # compression among them
    limit = (_MAX_EXPANSION if filtered else 1) * stored
    if nbytes > limit + _SLACK_BYTES:
        raise CorruptFileError(f'{what}: dataset {name!r} of {source} claims shape '
                               f'{dataset.shape} ({nbytes} bytes) but stores only {stored} '
                               f'bytes; the file is malformed')


def check_hdf5(f: Any, source: str, what: str, file_size: Optional[int] = None) -> None:
    """Check a whole open HDF5 file before anything is read from it.

    Every link is inspected without being followed: external links and user-defined links
    are refused, soft links must resolve inside the file, hard links are walked once each
    (cycles included); every dataset passes :func:`check_dataset`, and together they may not
    claim more than ``_MAX_EXPANSION`` times ``file_size`` bytes.

    Raises:
        chainlet.serializers.UnsafeFileError: (a ``ValueError``) an entry reads other files;
            the message names the file and the entry.
        chainlet.serializers.CorruptFileError: a dangling soft link, an unreadable entry,
            sizes the file cannot hold.
    """
    h5py = _h5py(what)
    seen: set = set()
    soft: list = []
    datasets: list = []
    groups = [f['/']]
    while groups:
        group = groups.pop()
        info = h5py.h5o.get_info(group.id)
        if (info.fileno, info.addr) in seen:
            continue
        seen.add((info.fileno, info.addr))
        for name in group:
            path = f'{group.name.rstrip("/")}/{name}'
            link = group.get(name, getlink=True)
            if isinstance(link, h5py.ExternalLink):
                raise UnsafeFileError(f'{what}: {path!r} of {source} is an external link to '
                                      f'{link.path!r} in {link.filename!r}; links to other '
                                      f'files are refused (a model file must not read other '
                                      f'files)')
            if isinstance(link, h5py.SoftLink):
                soft.append((path, link.path))
                continue
            if not isinstance(link, h5py.HardLink):
                raise UnsafeFileError(f'{what}: {path!r} of {source} is a user-defined link '
                                      f'({type(link).__name__}), which is refused')
            obj = group.get(name)
            if isinstance(obj, h5py.Group):
                groups.append(obj)
            elif isinstance(obj, h5py.Dataset):
                datasets.append(obj)
    # Soft links are resolved only now that no external link is left for them to reach.
    for path, target in soft:
        error: Optional[Exception] = None
        try:
            obj = f.get(path)
        except (KeyError, OSError, RuntimeError, ValueError) as e:
            obj, error = None, e
        if obj is None:
            raise CorruptFileError(f'{what}: {path!r} of {source} is a soft link to {target!r}, '
                                   f'which is not in the file{f" ({error})" if error else ""}')
        if isinstance(obj, h5py.Dataset):
            datasets.append(obj)
    total = 0
    for dataset in datasets:
        check_dataset(dataset, source, what)
        if dataset.shape is not None:
            total += int(numpy.prod(dataset.shape, dtype=object)) * dataset.dtype.itemsize
    if file_size is not None and total > _MAX_EXPANSION * file_size + _SLACK_BYTES:
        raise CorruptFileError(f'{what}: the datasets of {source} claim {total} bytes, far '
                               f'more than a {file_size}-byte file can hold; the file is '
                               f'malformed')


@contextlib.contextmanager
def open_hdf5(file: FileLike, what: str = 'open_hdf5') -> Iterator[Any]:
    """Open an HDF5 file for reading, after checking that it reads nothing but itself.

    The one way chainlet opens HDF5 files (``load_hdf5``, Keras's ``.h5`` and
    ``.weights.h5``, Keras application weights): a file is refused before any data is read if
    a dataset keeps its data in other files (external storage, virtual datasets), a link
    leads to another file (external links) or nowhere (dangling soft links), or the datasets
    claim far more bytes than the file holds (see :func:`check_hdf5`).

    Args:
        file: A path or a binary file object.
        what: The caller's name for error messages.

    Yields:
        The open, read-only ``h5py.File`` (closed afterwards).

    Raises:
        ImportError: h5py is not installed.
        FileNotFoundError: No file at the path.
        chainlet.serializers.UnsafeFileError: (a ``ValueError``) the file reads other files;
            the message names the file and the entry.
        chainlet.serializers.CorruptFileError: not a readable HDF5 file, or its datasets claim
            far more bytes than it holds.

    Example:
        >>> import io, numpy as np
        >>> import pytest; h5py = pytest.importorskip('h5py')
        >>> from chainlet.serializers import open_hdf5
        >>> buf = io.BytesIO()
        >>> with h5py.File(buf, 'w') as f:
        ...     f['W'] = np.eye(2, dtype=np.float32)
        >>> with open_hdf5(buf) as f:
        ...     f['W'][()]
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    h5py = _h5py(what)
    source = describe_file(file)
    try:
        f = h5py.File(file, 'r')
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        raise
    except (OSError, ValueError) as e:
        if is_path(file) and not os.path.exists(file):
            raise
        raise CorruptFileError(f'{what}: {source} is not a readable HDF5 file (truncated or '
                               f'corrupted?): {e}') from e
    try:
        try:
            check_hdf5(f, source, what, _file_size(file))
        except (UnsafeFileError, CorruptFileError):
            raise
        except (OSError, RuntimeError, ValueError, KeyError, TypeError) as e:
            raise CorruptFileError(f'{what}: the structure of {source} cannot be read '
                                   f'(truncated or corrupted file?): {e}') from e
        yield f
    finally:
        f.close()


def write_hdf5(file: FileLike, build: Callable[[Any], None], what: str = 'write_hdf5',
               **kwargs: Any) -> None:
    """Build an HDF5 file in memory with ``build(h5file)``, then write its bytes to ``file``.

    HDF5 crashes the process (SIGSEGV in h5py's cleanup) when a write to disk fails half-way,
    on a full disk or a file-size limit. So the file is assembled in memory (h5py's ``core``
    driver without a backing store) and written with ordinary Python file I/O, where a failure
    is an ``OSError`` naming the file; a path is written atomically (the previous file stays
    intact, the temporary file is removed). The price is the file's size in memory, twice,
    while it is written.

    Args:
        file: A path or a binary file object.
        build: Fills the open, writable ``h5py.File``.
        what: The caller's name for error messages.
        **kwargs: More arguments of ``h5py.File`` (e.g. ``libver``).

    Raises:
        OSError: The file cannot be written (full disk, size limit); it names the file.

    Example:
        >>> import io, numpy as np
        >>> import pytest; h5py = pytest.importorskip('h5py')
        >>> from chainlet.serializers import write_hdf5
        >>> buf = io.BytesIO()
        >>> write_hdf5(buf, lambda f: f.create_dataset('b', data=np.arange(3)))
        >>> with h5py.File(buf, 'r') as f:
        ...     f['b'][()]
        array([0, 1, 2])
    """
    h5py = _h5py(what)
    # The name only identifies the in-memory file to HDF5; nothing is created on disk.
    name = f'chainlet-memory-{uuid.uuid4().hex}.h5'
    with h5py.File(name, 'w', driver='core', backing_store=False, **kwargs) as f:
        build(f)
        f.flush()
        image = f.id.get_file_image()
    if is_path(file):
        with atomic_path(file) as tmp:
            with open(tmp, 'wb') as out:
                out.write(image)
    else:
        file.write(image)


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
        self._checked = False  # whether the file passed check_hdf5 (load_hdf5 checks first)

    def _has(self, key: str) -> bool:
        try:
            return isinstance(self._root.get(key), self._h5py.Dataset)
        except (OSError, RuntimeError, ValueError, KeyError):
            return False

    def _read(self, key: str) -> Any:
        if not self._checked:
            # A group opened by the caller: check its whole file once (links included)
            # before the first read, as load_hdf5 does.
            check_hdf5(self._root.file, self._state.source, self._what)
            self._checked = True
        try:
            dataset = self._root[key]
            check_dataset(dataset, self._state.source, self._what)
            if dataset.shape is None:
                return _NONE
            data = dataset[()]
        except (UnsafeFileError, CorruptFileError):
            raise
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

    The file is built in memory (see :func:`write_hdf5`), then written to a temporary file in
    the same folder, flushed to disk and renamed over ``filename``; if serialization or writing
    fails (a full disk included), the previous file is left intact and an ``OSError`` names
    the file.

    Args:
        filename: A path or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        compression: gzip level (0-9) for arrays of more than one element; ``None`` or 0 for
            none.
    """
    write_hdf5(filename, lambda f: obj.serialize(HDF5Serializer(f, compression)), 'save_hdf5')


def load_hdf5(filename: FileLike, obj: Any, path: str = '', strict: bool = True,
              ignore_names: IgnoreNames = None) -> None:
    """Load the values of ``obj`` from an HDF5 file written by :func:`save_hdf5`.

    Keys are checked as in :func:`~chainlet.serializers.load_npz`: with ``strict=True`` one
    ``KeyError`` lists all missing and unexpected keys and no existing array is modified. The
    file is checked first (:func:`open_hdf5`): one whose datasets would read other files
    (external storage or links, virtual datasets) is refused.

    Args:
        filename: A path or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        path: Sub-tree (group path) to load, e.g. ``'predictor/'``.
        strict: Check that the keys match; ``False`` skips missing and extra keys.
        ignore_names: Keys (full, with ``path``) or predicates ``f(key) -> bool`` to skip.
    """
    source = describe_file(filename)
    what = f'load_hdf5({source})'
    with open_hdf5(filename, what) as f:
        d = HDF5Deserializer(f, path=path, strict=strict, ignore_names=ignore_names)
        d._state.source = source
        d._checked = True
        d._run_session(obj, what)
