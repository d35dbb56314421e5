"""``snapshot`` and ``snapshot_object``: save the trainer (or any object) periodically.

Example:
    >>> import os, tempfile, numpy as np, chainlet
    >>> from chainlet.training import extensions
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.w = chainlet.Parameter(np.zeros(2, np.float32))
    >>> ext = extensions.snapshot_object(link, 'model_iter_{.updater.iteration}')
    >>> ext.filename, ext.priority, ext.trigger
    ('model_iter_{.updater.iteration}', -100, (1, 'epoch'))
"""
from __future__ import annotations

import os
from typing import Any, Callable, Optional

from chainlet.training import extension
from chainlet.training._files import is_temp_name
from chainlet.training.extensions import snapshot_writers


def _always_true() -> bool:
    return True


def _snapshot_files(fmt: str, path: str) -> list:
    """``(mtime_ns, name)`` of the files in ``path`` that the template ``fmt`` could produce,
    oldest first (temporary files of interrupted saves excluded)."""
    if not os.path.isdir(path):
        return []
    prefix = fmt.split('{')[0]
    suffix = fmt.split('}')[-1] if '}' in fmt else ''
    found = []
    for name in os.listdir(path):
        if is_temp_name(name) or not (name.startswith(prefix) and name.endswith(suffix)):
            continue
        full = os.path.join(path, name)
        if os.path.isfile(full):
            found.append((os.stat(full).st_mtime_ns, name))
    return sorted(found)


def find_latest_snapshot(fmt: str, path: str) -> Optional[str]:
    """The newest file in ``path`` matching the template ``fmt``, or ``None``.

    Example:
        >>> import tempfile
        >>> from chainlet.training.extensions._snapshot import find_latest_snapshot
        >>> find_latest_snapshot('snapshot_iter_{.updater.iteration}', tempfile.mkdtemp())
    """
    files = _snapshot_files(fmt, path)
    return files[-1][1] if files else None


def find_stale_snapshots(fmt: str, path: str, n_retains: int) -> list:
    """The files matching ``fmt`` beyond the ``n_retains`` newest ones."""
    files = _snapshot_files(fmt, path)
    return [name for _, name in files[:max(len(files) - n_retains, 0)]]


# Chainer's private names for the three helpers above, which libraries built on Chainer import
# (ChainerMN's multi-node snapshot: ``from chainer.training.extensions._snapshot import
# _find_latest_snapshot``).
_find_snapshot_files = _snapshot_files
_find_latest_snapshot = find_latest_snapshot
_find_stale_snapshots = find_stale_snapshots


class _Snapshot(extension.Extension):
    """The extension returned by :func:`snapshot` and :func:`snapshot_object`."""

    trigger = 1, 'epoch'
    priority = -100

    def __init__(self, target: Any = None, condition: Optional[Callable[[], bool]] = None,
                 writer: Optional[snapshot_writers.Writer] = None,
                 filename: Any = 'snapshot_iter_{.updater.iteration}',
                 snapshot_on_error: bool = False, n_retains: int = -1,
                 autoload: bool = False) -> None:
        if not (isinstance(filename, str) or callable(filename)):
            raise TypeError(f'snapshot: argument filename: expected a str template or a '
                            f'callable, got {type(filename).__name__}')
        self._target = target
        self.filename = filename
        self.condition = condition or _always_true
        self.writer = writer or snapshot_writers.SimpleWriter()
        self._snapshot_on_error = snapshot_on_error
        self.n_retains = n_retains
        self.autoload = autoload
        self._cleanup_added = False
        self._autoloaded = False

    def autoload_snapshot(self, trainer: Any) -> Optional[str]:
        """With ``autoload``, load the newest matching snapshot of ``trainer.out`` now.

        ``Trainer.run`` calls this before any extension's ``initialize``, so that they all
        start from the resumed state; :meth:`initialize` then does not load again.

        Returns:
            The path loaded, or ``None`` (``autoload`` off, a callable ``filename``, or no
            matching file).
        """
        self._autoloaded = True
        if not (self.autoload and isinstance(self.filename, str)):
            return None
        latest = find_latest_snapshot(self.filename, trainer.out)
        if latest is None:
            return None
        from chainlet.serializers import load_npz
        path = os.path.join(trainer.out, latest)
        load_npz(path, trainer if self._target is None else self._target)
        return path

    def initialize(self, trainer: Any) -> None:
        """Load the newest matching snapshot (``autoload``; unless ``Trainer.run`` already
        did) and set up the removal of old ones (``n_retains``)."""
        outdir = trainer.out
        if not self._autoloaded:
            self.autoload_snapshot(trainer)
        self._autoloaded = False
        if self.n_retains > 0 and isinstance(self.filename, str) and not self._cleanup_added \
                and hasattr(self.writer, '_add_cleanup_hook'):
            fmt, n_retains = self.filename, self.n_retains

            def cleanup() -> None:
                for name in find_stale_snapshots(fmt, outdir, n_retains):
                    try:
                        os.remove(os.path.join(outdir, name))
                    except FileNotFoundError:
                        pass

            self.writer._add_cleanup_hook(cleanup)
            self._cleanup_added = True

    def __call__(self, trainer: Any) -> None:
        """Take a snapshot if ``condition()`` holds."""
        if self.condition():
            self._make_snapshot(trainer)

    def _make_snapshot(self, trainer: Any) -> None:
        target = trainer if self._target is None else self._target
        filename = self.filename(trainer) if callable(self.filename) \
            else self.filename.format(trainer)
        self.writer(filename, trainer.out, target)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        """Take a snapshot of the state at the error when ``snapshot_on_error`` is set."""
        if self._snapshot_on_error:
            self._make_snapshot(trainer)

    def finalize(self) -> None:
        """Let the writer finish pending writes."""
        finalize = getattr(self.writer, 'finalize', None)
        if finalize is not None:
            finalize()


def snapshot(savefun: Optional[Callable] = None,
             filename: Any = 'snapshot_iter_{.updater.iteration}', *, target: Any = None,
             condition: Optional[Callable[[], bool]] = None,
             writer: Optional[snapshot_writers.Writer] = None, snapshot_on_error: bool = False,
             n_retains: int = -1, autoload: bool = False) -> _Snapshot:
    """An extension that saves the trainer (or ``target``) into the output folder.

    The file is written atomically (a temporary file in the same folder, then a rename), so a
    crash during a save never damages earlier snapshots. Resume a run by building the same
    trainer and calling ``chainlet.serializers.load_npz(path, trainer)`` before ``run()``, or
    pass ``autoload=True``.

    Args:
        savefun: ``savefun(path, target)``; :func:`chainlet.serializers.save_npz` by default.
            Not together with ``writer``.
        filename: Template formatted with the trainer, ``'snapshot_iter_{.updater.iteration}'``
            by default, or a callable ``filename(trainer) -> str``.
        target: What to save; the trainer if ``None``.
        condition: ``condition() -> bool``; the snapshot is skipped when it returns ``False``.
        writer: A :mod:`~chainlet.training.extensions.snapshot_writers` writer.
        snapshot_on_error: Also save when the training loop raises.
        n_retains: Keep only this many newest snapshots matching ``filename`` (``-1``: all).
        autoload: Before training, load the newest snapshot matching ``filename`` in the
            output folder, if there is one (it must have been written by ``save_npz``).

    Returns:
        The extension (trigger ``(1, 'epoch')``, priority ``-100``: after every other
        extension of the iteration, so the log and other states are saved up to date).

    Raises:
        TypeError: both ``savefun`` and ``writer`` were given.
    """
    if savefun is not None and writer is not None:
        raise TypeError('snapshot: give either savefun or writer, not both')
    if writer is None:
        writer = snapshot_writers.SimpleWriter(savefun=savefun)
    return _Snapshot(target=target, condition=condition, writer=writer, filename=filename,
                     snapshot_on_error=snapshot_on_error, n_retains=n_retains,
                     autoload=autoload)


def snapshot_object(target: Any, filename: Any, savefun: Optional[Callable] = None,
                    **kwargs: Any) -> _Snapshot:
    """An extension that saves ``target`` (e.g. the model) into the output folder.

    Same as ``snapshot(savefun, filename, target=target, **kwargs)``.

    Args:
        target: The object to save (it needs a ``serialize`` method).
        filename: Template formatted with the trainer, e.g. ``'model_epoch_{.updater.epoch}'``.
        savefun: ``savefun(path, target)``; :func:`chainlet.serializers.save_npz` by default.
        kwargs: ``condition``, ``writer``, ``snapshot_on_error``, ``n_retains``, ``autoload``.
    """
    return snapshot(savefun, filename, target=target, **kwargs)
