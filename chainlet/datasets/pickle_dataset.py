"""``PickleDataset``: random access to a file of pickled objects, one after another.

:class:`PickleDatasetWriter` appends objects with :func:`pickle.dump`; :class:`PickleDataset`
scans the file once for the offset of each object, then loads example ``i`` by seeking to its
offset. Any picklable objects can be stored, and a dataset larger than memory stays on disk.

A dataset opened by path (:func:`open_pickle_dataset`) reopens its file in a forked child
process (through :func:`os.register_at_fork`), so that the workers of a
:class:`~chainlet.iterators.MultiprocessIterator` do not share one file offset.

Only open files you trust: unpickling runs code chosen by whoever wrote the file.

Example:
    >>> import os, tempfile
    >>> from chainlet.datasets import open_pickle_dataset, open_pickle_dataset_writer
    >>> path = os.path.join(tempfile.mkdtemp(), 'data.pkl')
    >>> with open_pickle_dataset_writer(path) as w:
    ...     w.write((1, 2.0, 'hello'))
    ...     w.write((2, 3.0, 'good-bye'))
    >>> with open_pickle_dataset(path) as dataset:
    ...     len(dataset), dataset[1]
    (2, (2, 3.0, 'good-bye'))
"""
from __future__ import annotations

import io
import os
import pickle
import threading
import weakref
from typing import Any

from chainlet.dataset.dataset_mixin import DatasetMixin


class PickleDatasetWriter:
    """Append pickled objects to a binary file object (``write`` and ``tell``).

    Args:
        writer: The file object written to.
        protocol: The :mod:`pickle` protocol.
    """

    def __init__(self, writer: Any, protocol: int = pickle.HIGHEST_PROTOCOL) -> None:
        self._positions: list[int] = []
        self._writer = writer
        self._protocol = protocol

    def close(self) -> None:
        """Close the file object."""
        self._writer.close()

    def __enter__(self) -> 'PickleDatasetWriter':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def write(self, x: Any) -> None:
        """Append the object ``x``."""
        position = self._writer.tell()
        pickle.dump(x, self._writer, protocol=self._protocol)
        self._positions.append(position)

    def flush(self) -> None:
        """Flush the file object, if it can be flushed."""
        if hasattr(self._writer, 'flush'):
            self._writer.flush()


def _reopen_after_fork(ref: 'weakref.ref[PickleDataset]') -> None:
    dataset = ref()
    if dataset is not None:
        dataset._after_fork()


class PickleDataset(DatasetMixin):
    """The objects of a file written by :class:`PickleDatasetWriter`, by index.

    Args:
        reader: A binary file object that supports random access (``seekable()`` is true).

    Raises:
        ValueError: ``reader`` cannot seek.
    """

    def __init__(self, reader: Any) -> None:
        if not reader.seekable():
            raise ValueError('PickleDataset: argument reader: must support random access '
                             '(seekable() returned False)')
        self._reader = reader
        self._positions = []
        reader.seek(0)
        while True:
            position = reader.tell()
            try:
                pickle.load(reader)
            except EOFError:
                break
            self._positions.append(position)
        self._lock = threading.RLock()
        self._register_hook()

    def _register_hook(self) -> None:
        # A weak reference, so that the process-wide hook does not keep the dataset alive.
        ref = weakref.ref(self)
        os.register_at_fork(after_in_child=lambda: _reopen_after_fork(ref))

    def _after_fork(self) -> None:
        if callable(getattr(self._reader, 'after_fork', None)):
            self._reader.after_fork()

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state['_lock']
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()
        self._register_hook()

    def close(self) -> None:
        """Close the file; the dataset cannot be read afterwards."""
        with self._lock:
            self._reader.close()

    def __enter__(self) -> 'PickleDataset':
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __len__(self) -> int:
        return len(self._positions)

    def get_example(self, i: int) -> Any:
        with self._lock:
            self._reader.seek(self._positions[i])
            return pickle.load(self._reader)


class _FileReader(io.RawIOBase):
    """A binary file opened by path that reopens itself after a fork or an unpickling."""

    def __init__(self, path: str) -> None:
        super().__init__()
        self._path = path
        self._fp = open(path, 'rb')

    def after_fork(self) -> None:
        """Reopen the file, so that this process has its own file offset."""
        self._fp.close()
        self._fp = open(self._path, 'rb')

    def __getstate__(self) -> dict:
        return {'_path': self._path}

    def __setstate__(self, state: dict) -> None:
        self._path = state['_path']
        self._fp = open(self._path, 'rb')

    def close(self) -> None:
        self._fp.close()
        super().close()

    def fileno(self) -> int:
        return self._fp.fileno()

    def seekable(self) -> bool:
        return True

    def readable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        return self._fp.seek(offset, whence)

    def tell(self) -> int:
        return self._fp.tell()

    def readinto(self, b: Any) -> int:
        return self._fp.readinto(b)


def open_pickle_dataset(path: str) -> PickleDataset:
    """Open the file at ``path`` as a :class:`PickleDataset` (close it, or use ``with``)."""
    return PickleDataset(_FileReader(path))


def open_pickle_dataset_writer(path: str,
                               protocol: int = pickle.HIGHEST_PROTOCOL) -> PickleDatasetWriter:
    """Create (or truncate) the file at ``path`` and return a writer to it (close it, or use
    ``with``)."""
    return PickleDatasetWriter(open(path, 'wb'), protocol)
