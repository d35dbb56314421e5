"""``create_multi_node_checkpointer``: every process keeps its own recent snapshots and a
restart resumes from the newest iteration that *all* processes saved.

Files are named ``<name>.<rank>.<iteration>``. Prefer :func:`multi_node_snapshot` in new code
(ChainerMN deprecated the checkpointer for it); this one is kept for ChainerMN programs::

    checkpointer = create_multi_node_checkpointer(name='run1', comm=comm)
    checkpointer.maybe_load(trainer, optimizer)      # before trainer.run()
    trainer.extend(checkpointer, trigger=(1000, 'iteration'))
"""
from __future__ import annotations

import os
import tempfile
import time
import warnings
from typing import Any, Iterable, Optional

from chainlet.training import extension


class CheckpointStats:
    """Durations of the snapshots taken: call :meth:`start` and :meth:`end` around each.

    Example:
        >>> stats = CheckpointStats()
        >>> stats.report()
        'No stats available'
        >>> stats.start(); stats.end()
        >>> stats.report().startswith('Snapshot duration stats (sec): avg=')
        True
    """

    def __init__(self) -> None:
        self.durations: list = []
        self._begin: Optional[float] = None

    def start(self) -> None:
        self._begin = time.perf_counter()

    def end(self) -> None:
        if self._begin is not None:
            self.durations.append(time.perf_counter() - self._begin)
            self._begin = None

    def report(self) -> str:
        """A one-line summary: mean, min and max seconds."""
        d = self.durations
        if not d:
            return 'No stats available'
        return (f'Snapshot duration stats (sec): avg={sum(d) / len(d):f}, min={min(d):f}, '
                f'max={max(d):f}')


class MultiNodeCheckpointer(extension.Extension):
    """The extension returned by :func:`create_multi_node_checkpointer`."""

    def __init__(self, name: str, comm: Any, cp_interval: int = 5, gc_interval: int = 5,
                 path: Optional[str] = None) -> None:
        if not isinstance(name, str) or not name or '.' in name:
            raise ValueError(f'create_multi_node_checkpointer: argument name: expected a '
                             f'non-empty str without dots, got {name!r}')
        for arg, value in (('cp_interval', cp_interval), ('gc_interval', gc_interval)):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f'create_multi_node_checkpointer: argument {arg}: expected a '
                                 f'positive int, got {value!r}')
        self.name = name
        self.comm = comm
        self.cp_interval = cp_interval
        self.gc_interval = gc_interval
        self.path = path
        if path is not None:
            os.makedirs(path, exist_ok=True)
        self.files: list = []
        self.stats = CheckpointStats()

    def __call__(self, trainer: Any) -> None:
        if self.path is None:
            self.path = trainer.out
        self.save(trainer, trainer.updater.iteration)

    def _dir(self) -> str:
        if self.path is None:
            raise RuntimeError('MultiNodeCheckpointer: no folder yet; pass path= or call it '
                               'from a trainer (which gives its out folder)')
        return self.path

    def save(self, target: Any, iteration: int) -> None:
        """Write ``target`` as ``<name>.<rank>.<iteration>`` (every process, at the same
        iteration); every ``gc_interval`` saves beyond ``cp_interval``, the files of
        iterations not among the ``cp_interval`` newest common ones are removed (collective
        then)."""
        from chainlet.serializers import save_npz
        filename = self._filename(iteration)
        folder = self._dir()
        os.makedirs(folder, exist_ok=True)
        self.stats.start()
        fd, tmp = tempfile.mkstemp(prefix='tmp-' + filename, dir=folder)
        os.close(fd)
        try:
            save_npz(tmp, target)
            os.replace(tmp, os.path.join(folder, filename))
        except BaseException:
            if os.path.exists(tmp):
                os.remove(tmp)
            raise
        self.stats.end()
        self.files.append(filename)
        if len(self.files) - self.cp_interval >= self.gc_interval:
            self._sync_file_list(remove_remainder=True)

    def finalize(self) -> None:
        """Remove this process's checkpoints (training ended without error)."""
        for name in self.files:
            try:
                os.remove(os.path.join(self._dir(), name))
            except OSError:
                pass
        self.files = []

    def get_stats(self) -> str:
        """How long the snapshots took (see :class:`CheckpointStats`)."""
        return self.stats.report()

    def maybe_load(self, trainer: Any, optimizer: Any = None, path: Optional[str] = None) -> None:
        """Load the newest iteration that every process has a checkpoint of, if any
        (collective). With ``optimizer`` (a multi-node one), its next update does not
        broadcast, since every process resumed the same state."""
        from chainlet.serializers import load_npz
        if self.path is None:
            self.path = path if path is not None else trainer.out
        try:
            names = os.listdir(self.path)
        except OSError:
            names = []
        mine = [p for p in self._parse_filenames(names)
                if p is not None and p[1] == self.comm.rank]
        self.files = self._filenames(i for _, _, i in mine)
        self._sync_file_list()
        iterations = [i for _, _, i in self._parse_filenames(self.files)]
        if iterations:
            load_npz(os.path.join(self._dir(), self._filename(max(iterations))), trainer)
            if optimizer is not None and hasattr(optimizer, 'mark_synced'):
                optimizer.mark_synced()

    def _sync_file_list(self, remove_remainder: bool = False) -> None:
        lists = self.comm.allgather_obj(self.files)
        common: Optional[set] = None
        for files in lists:
            its = {p[2] for p in self._parse_filenames(files) if p is not None}
            common = its if common is None else common & its
        keep = sorted(common or ())[-self.cp_interval:]
        files = self._filenames(keep)
        if remove_remainder:
            for name in set(self.files) - set(files):
                try:
                    os.remove(os.path.join(self._dir(), name))
                except OSError:
                    pass
        self.files = files

    def _filename(self, iteration: int) -> str:
        return f'{self.name}.{self.comm.rank}.{int(iteration)}'

    def _filenames(self, iterations: Iterable[int]) -> list:
        return [self._filename(i) for i in iterations]

    def _parse_filename(self, filename: str) -> Optional[tuple]:
        parts = filename.split('.')
        if len(parts) != 3 or parts[0] != self.name:
            return None
        try:
            return parts[0], int(parts[1]), int(parts[2])
        except ValueError:
            return None

    def _parse_filenames(self, filenames: Iterable[str]) -> list:
        return [self._parse_filename(f) for f in filenames]


def create_multi_node_checkpointer(name: str, comm: Any, cp_interval: int = 5,
                                   gc_interval: int = 5,
                                   path: Optional[str] = None) -> MultiNodeCheckpointer:
    """A trainer extension that keeps generations of per-process snapshots (deprecated
    in ChainerMN for :func:`multi_node_snapshot`; warns ``DeprecationWarning``).

    Args:
        name: Identifier of the run (no dots): files are ``<name>.<rank>.<iteration>``.
        comm: A communicator from ``create_communicator``.
        cp_interval: How many of the newest common checkpoints to keep.
        gc_interval: How many saves beyond ``cp_interval`` trigger the removal of old ones.
        path: Folder of the files (``None``: the trainer's ``out``).

    Returns:
        The checkpointer; call ``maybe_load(trainer, optimizer)`` before training.
    """
    warnings.warn('create_multi_node_checkpointer is deprecated; use multi_node_snapshot',
                  DeprecationWarning, stacklevel=2)
    return MultiNodeCheckpointer(name, comm, cp_interval, gc_interval, path)
