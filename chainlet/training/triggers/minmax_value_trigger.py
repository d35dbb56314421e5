"""``MaxValueTrigger`` / ``MinValueTrigger``: fire when an observed value hits a new best.

Typical use: save the model whenever the validation accuracy improves::

    trainer.extend(extensions.snapshot_object(model, 'best_model.npz'),
                   trigger=triggers.MaxValueTrigger('validation/main/accuracy'))
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from chainlet import reporter
from chainlet.training import util


class BestValueTrigger:
    """Fire when the mean of ``key`` over the last interval is the best seen so far.

    The values of ``key`` in ``trainer.observation`` are averaged between two firings of the
    interval ``trigger``; at each such point the mean is compared with the best one.

    Args:
        key: The observation key to watch, e.g. ``'validation/main/loss'``.
        compare: ``compare(best, new) -> bool``: whether ``new`` is better than ``best``.
        trigger: When to compare (a trigger or a ``(period, unit)`` pair).
    """

    def __init__(self, key: str, compare: Callable[[float, float], bool],
                 trigger: Any = (1, 'epoch')) -> None:
        self._key = key
        self._best_value: Optional[float] = None
        self._interval_trigger = util.get_trigger(trigger)
        self._compare = compare
        self._init_summary()

    def _init_summary(self) -> None:
        self._summary = reporter.DictSummary()

    def __call__(self, trainer: Any) -> bool:
        """Accumulate the value; at the interval, return whether its mean is a new best."""
        observation = trainer.observation
        if self._key in observation:
            self._summary.add({self._key: observation[self._key]})
        if not self._interval_trigger(trainer):
            return False
        stats = self._summary.compute_mean()
        if self._key not in stats:
            return False
        value = float(stats[self._key])
        self._init_summary()
        if self._best_value is None or self._compare(self._best_value, value):
            self._best_value = value
            return True
        return False

    def serialize(self, serializer: Any) -> None:
        """Save or load the interval trigger, the running summary and the best value."""
        if hasattr(self._interval_trigger, 'serialize'):
            self._interval_trigger.serialize(serializer['interval_trigger'])
        self._summary.serialize(serializer['summary'])
        best = serializer('best_value', self._best_value)
        self._best_value = None if best is None else float(best)


class MaxValueTrigger(BestValueTrigger):
    """Fire when the mean of ``key`` over the interval is larger than every previous one.

    Args:
        key: The observation key, e.g. ``'validation/main/accuracy'``.
        trigger: When to compare; default once per epoch.

    Example:
        >>> from chainlet.training.triggers import MaxValueTrigger
        >>> class Trainer:
        ...     observation = {}
        >>> trainer, trigger = Trainer(), MaxValueTrigger('acc', trigger=lambda t: True)
        >>> fired = []
        >>> for acc in (0.5, 0.7, 0.6, 0.8):
        ...     trainer.observation = {'acc': acc}
        ...     fired.append(trigger(trainer))
        >>> fired
        [True, True, False, True]
    """

    def __init__(self, key: str, trigger: Any = (1, 'epoch')) -> None:
        super().__init__(key, lambda best, new: new > best, trigger)


class MinValueTrigger(BestValueTrigger):
    """Fire when the mean of ``key`` over the interval is smaller than every previous one.

    Args:
        key: The observation key, e.g. ``'validation/main/loss'``.
        trigger: When to compare; default once per epoch.
    """

    def __init__(self, key: str, trigger: Any = (1, 'epoch')) -> None:
        super().__init__(key, lambda best, new: new < best, trigger)
