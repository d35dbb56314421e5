"""``TextDataset``: the lines of one text file, or the parallel lines of several, by index.

The constructor reads the files once and records where each line starts, so that line ``i``
is read by seeking there; nothing else is kept in memory. The lines keep their newline, as
:meth:`io.TextIOBase.readline` returns them. A pickled dataset keeps those offsets and reopens
the files where it is unpickled (the files must not change in between).

Example:
    >>> import os, tempfile
    >>> from chainlet.datasets import TextDataset
    >>> d = tempfile.mkdtemp()
    >>> for name, text in (('en.txt', 'hello\\nworld\\n'), ('fr.txt', 'bonjour\\nmonde\\n')):
    ...     with open(os.path.join(d, name), 'w') as f:
    ...         _ = f.write(text)
    >>> ds = TextDataset([os.path.join(d, 'en.txt'), os.path.join(d, 'fr.txt')])
    >>> len(ds), ds[1]
    (2, ('world\\n', 'monde\\n'))
    >>> ds.close()
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Optional, Sequence, Union

from chainlet.dataset.dataset_mixin import DatasetMixin

StrOrList = Union[None, str, Sequence[Optional[str]]]


def _per_file(value: StrOrList, n: int) -> list:
    if value is None or isinstance(value, str):
        return [value] * n
    return list(value)


class TextDataset(DatasetMixin):
    """Lines of text files: a ``str`` per example for one file, a tuple for several.

    Args:
        paths: A path, or a list of paths whose files have the same number of lines.
        encoding: The encoding (see :func:`open`), or one per file.
        errors: The decoding error policy (see :func:`open`), or one per file.
        newline: The newline mode (see :func:`open`), or one per file.
        filter_func: Called with the lines of each file (one argument per file); only the
            lines for which it returns true are examples. ``None`` keeps every line.

    Raises:
        ValueError: No path is given, a per-file option does not have one entry per file, or
            the files have different numbers of lines.
    """

    def __init__(self, paths: Union[str, Sequence[str]], encoding: StrOrList = None,
                 errors: StrOrList = None, newline: StrOrList = None,
                 filter_func: Optional[Callable[..., bool]] = None) -> None:
        if isinstance(paths, str):
            paths = [paths]
        elif not paths:
            raise ValueError('TextDataset: argument paths: at least one text file must be '
                             'specified')
        paths = list(paths)
        n = len(paths)
        self._paths = paths
        self._encoding = _per_file(encoding, n)
        self._errors = _per_file(errors, n)
        self._newline = _per_file(newline, n)
        if not len(self._encoding) == len(self._errors) == len(self._newline) == n:
            raise ValueError('TextDataset: the length of each per-file option (encoding, '
                             f'errors, newline) must match the number of files ({n})')
        self._open()
        try:
            self._bounds, self._lines = self._scan(filter_func)
        except BaseException:
            self.close()
            raise
        self._lock = threading.Lock()

    def _scan(self, filter_func: Optional[Callable[..., bool]]) -> tuple[tuple, list]:
        # bounds[k][i]: where line i of file k starts; lines: the indices of kept lines.
        bounds: tuple[list, ...] = tuple([0] for _ in self._fps)
        lines: list = []
        count = 0
        while True:
            data = [fp.readline() for fp in self._fps]
            if not all(data):
                if any(data):
                    raise ValueError('TextDataset: the files have different numbers of lines')
                return bounds, lines
            for k, fp in enumerate(self._fps):
                bounds[k].append(fp.tell())
            if filter_func is None or filter_func(*data):
                lines.append(count)
            count += 1

    def _open(self) -> None:
        self._fps = [open(path, 'rt', encoding=enc, errors=err, newline=nl)
                     for path, enc, err, nl in zip(self._paths, self._encoding, self._errors,
                                                   self._newline)]

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state['_fps'], state['_lock']
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state
        self._open()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._lines)

    def close(self) -> None:
        """Close the files (they are also closed when the dataset is garbage-collected)."""
        error = None
        for fp in self._fps:
            try:
                fp.close()
            except Exception as e:  # close every file, then report the first failure
                error = error or e
        if error is not None:
            raise error

    def get_example(self, i: int) -> Any:
        if i < 0 or i >= len(self._lines):
            raise IndexError(f'TextDataset: index {i} is out of range for a dataset of length '
                             f'{len(self._lines)}')
        line = self._lines[i]
        with self._lock:
            for k, fp in enumerate(self._fps):
                fp.seek(self._bounds[k][line])
            data = [fp.readline() for fp in self._fps]
        return data[0] if len(data) == 1 else tuple(data)
