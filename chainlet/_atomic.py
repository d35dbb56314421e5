"""The one atomic file write used by every save path (serializers, snapshots, reports, Keras).

A save first writes a hidden temporary file next to its target, flushes it to disk (``fsync``),
then renames it over the target with :func:`os.replace`, and finally flushes the folder so that
the rename itself survives a crash. Readers therefore see either the old file or the complete
new one.

An exception during the write removes the temporary file, but a process that is *killed*
(``SIGKILL``, out-of-memory killer, a lost node) runs no cleanup code, so its temporary file
stays behind. To keep such leftovers from piling up (a large model leaves one full-size file per
kill), the temporary name records the host and the process id of the writer::

    .<target name>.<host>-<pid>.<random>.tmp

(with the target's extension appended for writers that need one, such as ``numpy.savez``)
and every save first removes the leftovers *of the same target* whose writer was on this host
and is no longer running. Files of live writers and of other hosts (a shared folder) are never
touched, and a recycled process id only delays a removal, it never removes a live file.
"""
from __future__ import annotations

import contextlib
import os
import re
import socket
import stat
import uuid
from typing import Iterator, Union

PathLike = Union[str, 'os.PathLike[str]']

_TEMP_SUFFIX = '.tmp'
# A writer that appends an extension to names lacking it (numpy.savez adds '.npz') is given a
# temporary name that keeps the target's extension after the suffix.
_TEMP_END = re.escape(_TEMP_SUFFIX) + r'(?:\.[A-Za-z0-9]{1,8})?'


def _host_tag() -> str:
    # Dots separate the fields of the temporary name, so keep only a safe subset of the name.
    return re.sub(r'[^A-Za-z0-9_-]', '_', socket.gethostname() or 'host')[:40]


def temp_name(path: PathLike, keep_extension: bool = False) -> str:
    """Return a fresh hidden temporary name next to ``path``.

    Args:
        path: The target file.
        keep_extension: End the name with the target's extension too (for writers such as
            ``numpy.savez`` that append one to a name lacking it).

    Returns:
        ``<folder>/.<name>.<host>-<pid>.<random>.tmp`` (``...tmp.<ext>`` with
        ``keep_extension``).

    Example:
        >>> import os
        >>> name = os.path.basename(temp_name('/tmp/model.npz'))
        >>> name.startswith('.model.npz.') and name.endswith('.tmp')
        True
    """
    directory, base = os.path.split(os.path.abspath(os.fspath(path)))
    ext = os.path.splitext(base)[1] if keep_extension else ''
    if not re.fullmatch(r'(\.[A-Za-z0-9]{1,8})?', ext):
        ext = ''  # an extension the cleanup patterns would not recognize: do without it
    return os.path.join(directory, f'.{base}.{_host_tag()}-{os.getpid()}.'
                                   f'{uuid.uuid4().hex[:12]}{_TEMP_SUFFIX}{ext}')


def is_temp_name(filename: str) -> bool:
    """True for a file name made by :func:`temp_name` (skipped when scanning for snapshots).

    Example:
        >>> is_temp_name('.snapshot_iter_10.myhost-123.0a1b2c3d4e5f.tmp')
        True
        >>> is_temp_name('snapshot_iter_10')
        False
    """
    return filename.startswith('.') and re.search(_TEMP_END + '$', filename) is not None


_TEMP_RE = re.compile(r'\.(?P<base>.+)\.(?P<host>[A-Za-z0-9_-]+)-(?P<pid>[0-9]+)\.[0-9a-f]+'
                      + _TEMP_END)


def _is_own_temp(path: str) -> bool:
    # A temporary file of this very process, e.g. the one a snapshot writer hands to save_npz.
    match = _TEMP_RE.fullmatch(os.path.basename(path))
    return (match is not None and match['host'] == _host_tag()
            and int(match['pid']) == os.getpid() and os.path.exists(path))


def _pid_is_running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only checks that the process exists
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists but belongs to someone else, or we cannot tell: keep its file
    return True


def remove_stale_temps(path: PathLike) -> list[str]:
    """Remove the temporary files that killed writers of ``path`` left behind.

    Only files named by :func:`temp_name` for this very target, written on this host by a process
    that no longer runs, are removed.

    Args:
        path: The target file whose leftovers are removed.

    Returns:
        The removed paths.
    """
    directory, base = os.path.split(os.path.abspath(os.fspath(path)))
    pattern = re.compile(re.escape(f'.{base}.') + r'(?P<host>[A-Za-z0-9_-]+)-(?P<pid>[0-9]+)'
                         r'\.[0-9a-f]+' + _TEMP_END + '$')
    host = _host_tag()
    removed: list = []
    try:
        names = os.listdir(directory or '.')
    except OSError:
        return removed
    for name in names:
        match = pattern.match(name)
        if match is None or match['host'] != host or _pid_is_running(int(match['pid'])):
            continue
        full = os.path.join(directory, name)
        with contextlib.suppress(OSError):
            os.remove(full)
            removed.append(full)
    return removed


def _fsync_path(path: str) -> None:
    # Folders cannot be opened for writing and some platforms refuse fsync on them (harmless).
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, 'O_BINARY', 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: PathLike, keep_extension: bool = False) -> Iterator[str]:
    """Yield a temporary path; when the block succeeds it atomically replaces ``path``.

    The caller writes the complete file to the yielded path (by name: any library that takes a
    file name works). On success the file is flushed to disk, given the permissions of the file
    it replaces (or the umask's default ``0o666 & ~umask`` for a new file, as with :func:`open`),
    and renamed over ``path``; a symbolic link ``path`` is written through, not replaced. On an
    exception the temporary file is removed and ``path`` keeps its previous content. Leftovers of
    killed earlier writers of ``path`` are removed first (see the module docstring).

    Args:
        path: The file to write.
        keep_extension: The temporary name ends with the extension of ``path`` too (for writers
            such as ``numpy.savez`` that append one to a name lacking it).

    Yields:
        The temporary path to write to; it exists (empty) when the block starts.

    Raises:
        FileNotFoundError: The folder of ``path`` does not exist (the message names it).
        OSError: Writing the temporary file failed (a full disk, a file-size limit): raised
            again with ``path`` as its file name, after the temporary file is removed.

    Example:
        >>> import os, tempfile
        >>> folder = tempfile.mkdtemp()
        >>> target = os.path.join(folder, 'out.txt')
        >>> with atomic_path(target) as tmp:
        ...     with open(tmp, 'w') as f:
        ...         _ = f.write('done')
        >>> with open(target) as f:
        ...     f.read(), os.listdir(folder)
        ('done', ['out.txt'])
    """
    shown = os.fspath(path)
    target = os.path.realpath(shown)
    if _is_own_temp(target):
        # Already a private temporary file of an enclosing atomic write (a snapshot writer
        # calling save_npz): write it in place, so that a kill leaves no nested leftover that
        # no later save would recognize.
        yield target
        return
    directory = os.path.dirname(target)
    remove_stale_temps(target)
    tmp = temp_name(target, keep_extension)
    try:
        # O_EXCL: never clobber another writer's file; 0o666 lets the umask apply as for open().
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_BINARY', 0),
                     0o666)
    except FileNotFoundError as e:
        raise FileNotFoundError(e.errno, f'cannot write {shown!r}: the folder {directory!r} '
                                f'does not exist', shown) from None
    # The mode open() would give a new file (0o666 & ~umask; a default ACL applied too). Some
    # writers replace the file at the name they are given (safetensors' save_file leaves
    # 0o600), so the mode is set again before the rename.
    new_mode = stat.S_IMODE(os.fstat(fd).st_mode)
    os.close(fd)
    try:
        try:
            yield tmp
        except OSError as e:
            if e.errno is None or e.filename not in (None, tmp):
                raise  # not the write itself (another file, a library's own error)
            # Name the target, not the temporary file (or nothing, as a full disk reports it).
            raise OSError(e.errno, e.strerror, shown) from e
        if not os.path.exists(tmp):
            raise RuntimeError(f'atomic write of {shown!r}: the temporary file {tmp!r} was '
                               f'removed before it could replace the target')
        _fsync_path(tmp)
        mode = new_mode
        with contextlib.suppress(OSError):
            if os.path.exists(target):  # keep the permissions of the file being replaced
                mode = stat.S_IMODE(os.stat(target).st_mode)
        with contextlib.suppress(OSError):
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _fsync_path(directory or '.')


def write_bytes(path: PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        with open(tmp, 'wb') as f:
            f.write(data)


def write_text(path: PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_path`)."""
    with atomic_path(path) as tmp:
        with open(tmp, 'w', encoding='utf-8') as f:
            f.write(text)
