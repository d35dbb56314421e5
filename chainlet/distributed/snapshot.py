"""``multi_node_snapshot``: one snapshot per *replica set* of processes, and a resume that
gives every process its set's state.

Processes often differ in what a snapshot holds: typically only rank 0's trainer has
``LogReport`` and ``PrintReport``. So the processes are grouped into replica sets whose members
hold the same state; the lowest rank of each set (its *master*) writes the snapshot, with its
rank appended to the file name, and on resume reads it and sends it to the other members::

    snapshot = multi_node_snapshot(comm, extensions.snapshot(autoload=True), [0])
    trainer.extend(snapshot, trigger=(1, 'epoch'))   # sets {0} and {1, ..., size - 1}
"""
from __future__ import annotations

import io
from typing import Any, Iterable, Union

import numpy

from chainlet.training import extension


def parse_replica_sets(replica_sets: Iterable[Union[int, Iterable[int]]], size: int) -> list:
    """The replica sets as a list of sets of ranks covering ``range(size)``.

    Each item is a rank or an iterable of ranks; the ranks no item names form one more set.

    Raises:
        ValueError: A rank outside ``range(size)``, or a rank in two sets.

    Example:
        >>> from chainlet.distributed.snapshot import parse_replica_sets
        >>> parse_replica_sets([0], 4)
        [{0}, {1, 2, 3}]
        >>> parse_replica_sets([[0, 1], [2, 3]], 4)
        [{0, 1}, {2, 3}]
    """
    sets: list = []
    for item in replica_sets:
        ranks = {item} if isinstance(item, (int, numpy.integer)) else set(item)
        bad = sorted(r for r in ranks if not 0 <= r < size)
        if bad:
            raise ValueError(f'multi_node_snapshot: argument replica_sets: rank(s) {bad} '
                             f'outside 0 .. {size - 1}')
        sets.append({int(r) for r in ranks})
    seen: set = set()
    for s in sets:
        if seen & s:
            raise ValueError(f'multi_node_snapshot: argument replica_sets: rank(s) '
                             f'{sorted(seen & s)} are in more than one set')
        seen |= s
    rest = set(range(size)) - seen
    if rest:
        sets.append(rest)
    return sets


class MultiNodeSnapshot(extension.Extension):
    """The extension returned by :func:`multi_node_snapshot` (see the module docstring).

    Attributes:
        snapshot: The wrapped snapshot extension (its file name gets ``.<rank>`` appended).
        master (int): The rank that writes and reads this process's replica set's snapshot.
        replica_set (set): The ranks of this process's replica set.
    """

    def __init__(self, comm: Any, snapshot: Any, replica_sets: Iterable) -> None:
        if comm is None or snapshot is None:
            raise TypeError('multi_node_snapshot: arguments comm and snapshot: expected a '
                            'communicator and a snapshot extension, got None')
        self.comm = comm
        self.snapshot = snapshot
        rank = comm.rank
        name = snapshot.filename
        if callable(name):
            snapshot.filename = lambda trainer: f'{name(trainer)}.{rank}'
        else:
            snapshot.filename = f'{name}.{rank}'
        self.replica_set = next(s for s in parse_replica_sets(replica_sets, comm.size)
                                if rank in s)
        self.master = min(self.replica_set)
        # Run where the wrapped snapshot would (trainer.extend reads these).
        self.trigger = getattr(snapshot, 'trigger', self.trigger)
        self.priority = getattr(snapshot, 'priority', self.priority)

    @property
    def is_master(self) -> bool:
        """Whether this process writes (and reads) its replica set's snapshot."""
        return self.master == self.comm.rank

    def initialize(self, trainer: Any) -> None:
        """The master initializes the snapshot (autoloading the newest file) and, with
        ``autoload``, sends the loaded state to the other members of its set (collective
        within the set)."""
        if self.is_master:
            self.snapshot.initialize(trainer)
        if not getattr(self.snapshot, 'autoload', False):
            return
        from chainlet.serializers import load_npz, save_npz
        from chainlet.training.extensions._snapshot import find_latest_snapshot
        target = trainer if self.snapshot._target is None else self.snapshot._target
        if self.is_master:
            data = None
            if isinstance(self.snapshot.filename, str) and \
                    find_latest_snapshot(self.snapshot.filename, trainer.out) is not None:
                buf = io.BytesIO()
                save_npz(buf, target)
                data = buf.getvalue()
            for member in sorted(self.replica_set - {self.comm.rank}):
                self.comm.send_obj(data, dest=member)
        else:
            data = self.comm.recv_obj(source=self.master)
            if data is not None:
                load_npz(io.BytesIO(data), target)

    def __call__(self, trainer: Any) -> None:
        if self.is_master:
            self.snapshot(trainer)

    def on_error(self, trainer: Any, exc: BaseException, tb: Any) -> None:
        if self.is_master:
            self.snapshot.on_error(trainer, exc, tb)

    def finalize(self) -> None:
        if self.is_master:
            self.snapshot.finalize()


def multi_node_snapshot(comm: Any, snapshot: Any, replica_sets: Iterable) -> MultiNodeSnapshot:
    """Wrap a snapshot extension so that each replica set of processes keeps one snapshot.

    Args:
        comm: A communicator from ``create_communicator``.
        snapshot: A ``chainlet.training.extensions.snapshot()`` (or ``snapshot_object``).
        replica_sets: Sets of ranks holding the same state, each a rank or an iterable of
            ranks; the remaining ranks form one more set (``[]``: all processes are one set,
            rank 0 writes).

    Returns:
        The trainer extension.

    Example (under ``mpiexec``)::

        snapshot = multi_node_snapshot(comm, extensions.snapshot(autoload=True), [0])
        trainer.extend(snapshot, trigger=(1, 'epoch'))
    """
    return MultiNodeSnapshot(comm, snapshot, replica_sets)
