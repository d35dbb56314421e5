"""Data-parallel ``fit`` for the Keras-like facade: ``model.fit(x, y, communicator=comm)``.

``fit`` turns the communicator into a :class:`KerasDataParallel` strategy and talks to it
through four calls: :meth:`~KerasDataParallel.distribute_data` once (this process's shard of
the data, the model synchronized; it runs :func:`prepare_fit`),
:meth:`~KerasDataParallel.after_backward` between backward and the optimizer update (averages
the gradients), :meth:`~KerasDataParallel.reduce_logs` before the epoch logs reach callbacks,
and :meth:`~KerasDataParallel.verbose` (progress on rank 0 only). This module, not the facade,
knows about communicators, and it does not import ``chainlet.training``.

Every process is expected to pass the same arrays (each loads the data itself, as Keras
scripts do); the examples are shuffled once with a seed taken from rank 0 and split into equal
shards with :func:`~chainlet.distributed.shard_bounds`, so no data travels between processes.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet.distributed.datasets import shard_bounds
from chainlet.distributed.optimizers import _signature
from chainlet.distributed.reductions import mean_over_processes


def _flatten(data: Any) -> list:
    if data is None:
        return []
    if isinstance(data, dict):
        return [a for k in sorted(data) for a in _flatten(data[k])]
    if isinstance(data, (list, tuple)):
        return [a for d in data for a in _flatten(d)]
    return [data]


def _map(data: Any, fn: Any) -> Any:
    if data is None:
        return None
    if isinstance(data, dict):
        return {k: _map(v, fn) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return type(data)(_map(d, fn) for d in data)
    return fn(data)


class DistributedFit:
    """What ``fit`` needs to train on several processes (made by :func:`prepare_fit`).

    Attributes:
        x, y, sample_weight: This process's shard of the training data.
        validation_data: This process's shard of ``validation_data`` (``None`` if none).
        comm: The communicator.
    """

    def __init__(self, model: Any, comm: Any, x: Any, y: Any, sample_weight: Any,
                 validation_data: Any) -> None:
        self.model = model
        self.comm = comm
        self.x, self.y, self.sample_weight = x, y, sample_weight
        self.validation_data = validation_data
        self._synced = _signature(model)

    def mean_grad(self) -> None:
        """Average the model's gradients over the processes (collective; run it after
        backward, before the optimizer update). Parameters created since the last call are
        first broadcast from rank 0."""
        signature = _signature(self.model)
        if signature != self._synced:
            self.comm.bcast_data(self.model)
            self._synced = signature
        self.comm.multi_node_mean_grad(self.model, zero_fill=True)

    def average_logs(self, logs: Optional[dict]) -> dict:
        """Mean of each numeric log value over the processes (collective); other entries are
        kept as they are."""
        logs = dict(logs or {})
        numeric = {k: v for k, v in logs.items()
                   if isinstance(v, (int, float, numpy.number, numpy.ndarray))
                   and not isinstance(v, bool)}
        logs.update(mean_over_processes(numeric, self.comm))
        return logs

    def verbose(self, verbose: Any) -> Any:
        """``verbose`` on rank 0, ``0`` (silent) elsewhere."""
        return verbose if self.comm.rank == 0 else 0


def prepare_fit(model: Any, comm: Any, x: Any, y: Any = None, sample_weight: Any = None,
                validation_data: Any = None) -> DistributedFit:
    """Shard the data of a ``fit`` call and synchronize the model (collective).

    Broadcasts rank 0's initialized parameters, checks that every process passed the same
    number of examples, shuffles them with a seed drawn on rank 0 and keeps this process's
    shard (every shard has ``ceil(N / size)`` examples).

    Args:
        model: The Keras model (a chainlet Link).
        comm: A communicator from :func:`create_communicator`.
        x: Inputs: an array or a list/tuple/dict of arrays with the examples along axis 0.
        y: Targets, same structure rules (or ``None``).
        sample_weight: Per-example weights (or ``None``).
        validation_data: ``(x_val, y_val)`` or ``(x_val, y_val, sample_weight_val)``, sharded
            the same way (without shuffling).

    Returns:
        A :class:`DistributedFit`.
    """
    arrays = _flatten(x) + _flatten(y) + _flatten(sample_weight)
    n = len(arrays[0]) if arrays else 0
    if any(len(a) != n for a in arrays):
        raise ValueError(f'prepare_fit: x, y and sample_weight must have the same number of '
                         f'examples, got {sorted({len(a) for a in arrays})}')
    counts = comm.allgather_obj(n)
    if len(set(counts)) != 1:
        raise ValueError(f'prepare_fit: every process must pass the same data; the numbers of '
                         f'examples per rank are {counts}')
    seed = comm.bcast_obj(int(numpy.random.randint(2 ** 31)) if comm.rank == 0 else None)
    order = numpy.random.RandomState(seed).permutation(n)
    b, e = shard_bounds(n, comm.size)[comm.rank]
    mine = order[b:e]

    def take(a: Any) -> Any:
        return numpy.asarray(a)[mine]

    val = None
    if validation_data is not None:
        n_val = len(_flatten(validation_data)[0])
        vb, ve = shard_bounds(n_val, comm.size)[comm.rank]
        val = _map(tuple(validation_data), lambda a: numpy.asarray(a)[vb:ve])
    comm.bcast_data(model)
    return DistributedFit(model, comm, _map(x, take), _map(y, take), _map(sample_weight, take),
                          val)


class KerasDataParallel:
    """The data-parallel strategy of ``keras.Model.fit(..., communicator=comm)``.

    Each process trains on its own shard of the (identical) arrays every process passes; the
    gradients are averaged after every backward, the epoch logs over the processes.

    Args:
        comm: A communicator from :func:`create_communicator`.

    Example:
        >>> import chainlet.distributed as cmn
        >>> class OneProcess:                     # what fit needs of a communicator
        ...     rank, size = 0, 1
        ...     def allgather_obj(self, obj): return [obj]
        ...     def bcast_obj(self, obj): return obj
        ...     def bcast_data(self, model): pass
        >>> strategy = cmn.KerasDataParallel(OneProcess())
        >>> strategy.verbose(2)
        2
    """

    def __init__(self, comm: Any) -> None:
        self.comm = comm
        self.plan: Optional[DistributedFit] = None

    def distribute_data(self, model: Any, x: Any, y: Any, sample_weight: Any,
                        validation_data: Any) -> tuple:
        """This process's ``(x, y, sample_weight, validation_data)`` (collective; see
        :func:`prepare_fit`). ``validation_data`` other than a tuple of arrays is kept."""
        val_tuple = validation_data if isinstance(validation_data, tuple) else None
        plan = prepare_fit(model, self.comm, x, y, sample_weight, val_tuple)
        self.plan = plan
        if val_tuple is not None:
            validation_data = plan.validation_data
        return plan.x, plan.y, plan.sample_weight, validation_data

    def verbose(self, verbose: Any) -> Any:
        """``verbose`` on rank 0, ``0`` (silent) elsewhere."""
        return verbose if self.comm.rank == 0 else 0

    def after_backward(self) -> None:
        """Average the gradients over the processes (collective)."""
        if self.plan is None:
            raise RuntimeError('KerasDataParallel.after_backward: distribute_data was not '
                               'called; the strategy is run by fit(communicator=...)')
        self.plan.mean_grad()

    def reduce_logs(self, logs: Optional[dict]) -> dict:
        """Mean of each numeric log value over the processes (collective)."""
        if self.plan is None:
            raise RuntimeError('KerasDataParallel.reduce_logs: distribute_data was not '
                               'called; the strategy is run by fit(communicator=...)')
        return self.plan.average_logs(logs)
