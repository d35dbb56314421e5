"""Trainer pieces for data-parallel runs: an evaluator that averages over processes and
:class:`AllreducePersistent`, which averages persistent values such as BatchNormalization's
running statistics."""
from __future__ import annotations

import types
from typing import Any

from chainlet import backend
from chainlet.distributed.reductions import mean_over_processes  # noqa: F401
from chainlet.training import extension


def create_multi_node_evaluator(actual_evaluator: Any, communicator: Any) -> Any:
    """Make an ``Evaluator`` report means over all processes (collective at every call).

    Each process evaluates its own shard (use :func:`scatter_dataset` for the validation
    set); the evaluator's ``evaluate`` then averages each value over the processes, so
    ``validation/main/accuracy`` is the same everywhere and covers the whole set. The
    evaluator is patched in place and returned.

    Args:
        actual_evaluator: A ``chainlet.training.extensions.Evaluator`` (or anything with an
            ``evaluate()`` returning a dict).
        communicator: A communicator from :func:`create_communicator`.

    Returns:
        ``actual_evaluator``.
    """
    original = getattr(actual_evaluator, 'evaluate', None)
    if not callable(original):
        raise TypeError(f'create_multi_node_evaluator: argument actual_evaluator: expected an '
                        f'evaluator with an evaluate() method, got '
                        f'{type(actual_evaluator).__name__}')

    def evaluate(self: Any) -> dict:
        return mean_over_processes(original(), communicator)

    actual_evaluator.evaluate = types.MethodType(evaluate, actual_evaluator)
    actual_evaluator._mn_communicator = communicator
    return actual_evaluator


class AllreducePersistent(extension.Extension):
    """Trainer extension that replaces every float persistent array of ``model`` by its mean
    over all processes (collective).

    Running statistics of ``BatchNormalization`` drift apart when each process sees its own
    data; averaging them before evaluation or a snapshot makes every process hold the same
    model. Integer persistents (counters) are left alone.

    Args:
        model: The link whose persistents are averaged.
        comm: A communicator from :func:`create_communicator`.

    Attributes:
        trigger: ``(1, 'epoch')``.
        priority: Just above :data:`~chainlet.training.PRIORITY_WRITER`, so that evaluators of
            the same iteration see the averaged values.
    """

    trigger = 1, 'epoch'
    priority = extension.PRIORITY_WRITER + 1

    def __init__(self, model: Any, comm: Any) -> None:
        from chainlet.link import Link
        if not isinstance(model, Link):
            raise TypeError(f'AllreducePersistent: argument model: expected a Link, got '
                            f'{type(model).__name__}')
        self.model = model
        self.comm = comm

    def __call__(self, trainer: Any = None) -> None:
        items = []
        for path, link in self.model.namedlinks():
            for name in link._persistent:
                value = link.__dict__[name]
                if backend.is_array(value) and value.dtype.kind == 'f':
                    items.append((f'{path.rstrip("/")}/{name}', link, name))
        for _, link, name in sorted(items, key=lambda item: item[0]):
            value = link.__dict__[name]
            mean = self.comm.allreduce(value) / self.comm.size
            backend.copyto(value, mean.astype(value.dtype, copy=False))
