"""Evaluation and observations across processes: :class:`GenericMultiNodeEvaluator` (any
per-batch result, gathered on one process), :class:`ObservationAggregator` (a reported value
averaged over processes) and :class:`MultiNodeEarlyStoppingTrigger` (early stopping on that
average, so that every process stops at the same iteration)."""
from __future__ import annotations

import copy
from typing import Any, Callable, Iterator, Optional

from chainlet import _config, backend
from chainlet.dataset import convert
from chainlet.training import extension
from chainlet.variable import Variable

# Batches evaluated between two synchronizations of the processes.
_GATHER_INTERVAL = 8


class GenericMultiNodeEvaluator(extension.Extension):
    """Evaluate a shard per process and aggregate every batch's result on ``root``.

    Each process iterates over its own ``iterator`` (shards may differ in length); for every
    batch, :meth:`calc_local` computes a result (by default ``target(*batch)``), the results
    are gathered on ``root`` (any picklable value) and :meth:`aggregate` reduces them there.
    Override those two methods to compute any metric. Calling the extension returns the
    aggregate on ``root`` and ``None`` elsewhere (collective).

    Args:
        comm: A communicator from ``create_communicator``.
        iterator: This process's iterator, not repeating (reset before each evaluation).
        target: The model (or any callable) ``calc_local`` calls by default.
        device: Device the converter sends the batches to.
        converter: Batch converter (default ``concat_examples``).
        root: The rank that aggregates.
        progress_hook: Called with each batch evaluated on ``root``.

    Example (under ``mpiexec``)::

        class Accuracy(GenericMultiNodeEvaluator):
            def calc_local(self, x, t):
                return int((model(x).array.argmax(1) == t).sum()), len(t)
            def aggregate(self, results):
                return sum(r[0] for r in results) / sum(r[1] for r in results)
    """

    trigger = 1, 'epoch'
    default_name = 'validation'
    priority = extension.PRIORITY_WRITER
    name = None

    def __init__(self, comm: Any, iterator: Any, target: Any, device: Any = None,
                 converter: Callable = convert.concat_examples, root: int = 0, *,
                 progress_hook: Optional[Callable] = None) -> None:
        if not 0 <= root < comm.size:
            raise ValueError(f'GenericMultiNodeEvaluator: argument root: expected 0 <= root < '
                             f'{comm.size}, got {root}')
        self.comm = comm
        self.iterator = iterator
        self._targets = {'main': target}
        self.converter = converter
        self.device = backend.get_device(device) if device is not None else None
        self.root = root
        self._progress_hook = progress_hook

    def calc_local(self, *args: Any, **kwargs: Any) -> Any:
        """The result of one batch on this process (default: ``target(*batch)``)."""
        return self._targets['main'](*args, **kwargs)

    def aggregate(self, results: list) -> Any:
        """Reduce the list of every batch's result on ``root`` (default: the list itself,
        ordered batch by batch, processes by rank within each step)."""
        return results

    def __call__(self, trainer: Any = None) -> Any:
        if hasattr(self.iterator, 'reset'):
            self.iterator.reset()
            it = self.iterator
        else:
            it = copy.copy(self.iterator)
        results = list(self._evaluate(it))
        return self.aggregate(results) if self.comm.rank == self.root else None

    def _calc(self, batch: Any) -> Any:
        in_arrays = convert._call_converter(self.converter, batch, self.device)
        with _config.using_config('enable_backprop', False):
            if isinstance(in_arrays, tuple):
                return self.calc_local(*in_arrays)
            if isinstance(in_arrays, dict):
                return self.calc_local(**in_arrays)
            return self.calc_local(in_arrays)

    def _evaluate(self, it: Any) -> Iterator[Any]:
        done = False
        while not done:
            got_any = False
            for _ in range(_GATHER_INTERVAL):
                try:
                    batch = it.next()
                except StopIteration:
                    batch = None
                # A tuple tells "no batch" apart from a result that is None.
                mine = None if batch is None else (self._calc(batch),)
                if batch is not None and self._progress_hook and self.comm.rank == self.root:
                    self._progress_hook(batch)
                gathered = self.comm.gather_obj(mine, root=self.root)
                if self.comm.rank == self.root:
                    present = [r[0] for r in gathered if r is not None]
                    got_any = got_any or bool(present)
                    yield from present
            done = self.comm.bcast_obj(not got_any, root=self.root)


def _average(histories: list) -> Any:
    values = [v for history in histories for v in history]
    return sum(values[1:], values[0]) / len(values)


class ObservationAggregator(extension.Extension):
    """Average an observed value over processes and over the iterations since the last
    communication, and report it under another key (collective every ``comm_trigger``).

    Args:
        comm: A communicator from ``create_communicator``.
        original_key: The key each process reports (e.g. ``'main/loss'``).
        aggregated_key: Where the aggregate goes (default: ``original_key`` itself).
        comm_trigger: When to communicate; between two, values are collected.
        aggregator: Function from the list of every process's list of values to the
            aggregate (default: their mean).

    Example (under ``mpiexec``)::

        trainer.extend(ObservationAggregator(comm, 'main/loss', 'main/loss_all'))
    """

    trigger = 1, 'iteration'
    priority = extension.PRIORITY_EDITOR
    name = None

    def __init__(self, comm: Any, original_key: str, aggregated_key: Optional[str] = None, *,
                 comm_trigger: Any = (1, 'iteration'),
                 aggregator: Optional[Callable[[list], Any]] = None) -> None:
        from chainlet.training import util
        self.comm = comm
        self.original_key = original_key
        self.aggregated_key = original_key if aggregated_key is None else aggregated_key
        self.comm_trigger = util.get_trigger(comm_trigger)
        self.observation_history: list = []
        self.aggregator = aggregator or _average

    def compute_summary(self, trainer: Any) -> Any:
        """Collect this iteration's value; when ``comm_trigger`` fires, return the aggregate
        (the same on every process), else ``None``."""
        if self.original_key in trainer.observation:
            value = trainer.observation[self.original_key]
            if isinstance(value, Variable):
                value = Variable(backend.to_cpu(value.array))
            elif backend.is_array(value):
                value = backend.to_cpu(value)
            self.observation_history.append(value)
        if not self.comm_trigger(trainer):
            return None
        gathered = self.comm.gather_obj(self.observation_history)
        self.observation_history = []
        summary = self.aggregator(gathered) if self.comm.rank == 0 else None
        return self.comm.bcast_obj(summary)

    def __call__(self, trainer: Any) -> None:
        summary = self.compute_summary(trainer)
        if summary is not None:
            trainer.observation[self.aggregated_key] = summary


class MultiNodeEarlyStoppingTrigger:
    """``EarlyStoppingTrigger`` on the mean of ``monitor`` over processes, so that all stop
    together.

    Args:
        comm: A communicator from ``create_communicator``.
        check_trigger: When to check (and communicate).
        monitor: The observed key; its mean is reported as ``monitor + suffix``.
        patience: Checks without improvement before stopping.
        mode: ``'auto'``, ``'min'`` or ``'max'``.
        verbose: Print when stopping.
        max_trigger: Stop at this point at the latest.
        suffix: Suffix of the aggregated key.
    """

    def __init__(self, comm: Any, *, check_trigger: Any = (1, 'epoch'),
                 monitor: str = 'main/loss', patience: Optional[int] = None,
                 mode: str = 'auto', verbose: bool = False, max_trigger: Any = (100, 'epoch'),
                 suffix: str = '_aggregated', **kwargs: Any) -> None:
        from chainlet.training.triggers import EarlyStoppingTrigger
        aggregated = monitor + suffix
        self.actual_trigger = EarlyStoppingTrigger(
            check_trigger=check_trigger, monitor=aggregated, patience=patience, mode=mode,
            verbose=verbose, max_trigger=max_trigger, **kwargs)
        self.aggregator = ObservationAggregator(comm, monitor, aggregated_key=aggregated,
                                                comm_trigger=check_trigger)

    def __call__(self, trainer: Any) -> bool:
        self.aggregator(trainer)
        return self.actual_trigger(trainer)

    def _init_summary(self) -> None:
        self.actual_trigger._init_summary()

    def get_training_length(self) -> Any:
        return self.actual_trigger.get_training_length()
