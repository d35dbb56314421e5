"""Atomic file writes used by the extensions that write into the trainer's output folder.

A file is first written under a hidden temporary name in the same folder, flushed to disk, then
renamed over the target with :func:`os.replace`. Readers therefore see either the old file or the
complete new one, also when the process dies in the middle of a write.
"""
from __future__ import annotations

import contextlib
import os
import uuid
from typing import Iterator


def _fsync_path(path: str) -> None:
    # Directories cannot be opened for writing; some platforms refuse fsync on them (harmless).
    flags = os.O_RDONLY | getattr(os, 'O_BINARY', 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def temp_name(path: str) -> str:
    """A hidden, unique name next to ``path`` (``.name.<random>.tmp``)."""
    directory, base = os.path.split(os.path.abspath(path))
    return os.path.join(directory, f'.{base}.{uuid.uuid4().hex[:12]}.tmp')


def is_temp_name(filename: str) -> bool:
    """True for names made by :func:`temp_name` (skipped when scanning for snapshots)."""
    return filename.startswith('.') and filename.endswith('.tmp')


@contextlib.contextmanager
def atomic_write_path(path: str) -> Iterator[str]:
    """Yield a temporary path; when the block succeeds it atomically replaces ``path``.

    On an exception the temporary file is removed and ``path`` keeps its previous content.
    """
    tmp = temp_name(path)
    try:
        yield tmp
        if not os.path.exists(tmp):
            raise RuntimeError(f'atomic write of {path!r}: nothing was written to the '
                               f'temporary file {tmp!r}')
        _fsync_path(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync_path(os.path.dirname(os.path.abspath(path)))


def write_text_atomic(path: str, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_write_path(path) as tmp:
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
