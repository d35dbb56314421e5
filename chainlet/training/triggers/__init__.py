"""Triggers: callables ``trigger(trainer) -> bool`` deciding when an extension runs or training
stops. A ``(period, unit)`` tuple such as ``(1, 'epoch')`` is accepted wherever a trigger is,
and becomes an :class:`IntervalTrigger`.

Example:
    >>> from chainlet.training import triggers
    >>> triggers.IntervalTrigger(2, 'iteration').get_training_length()
    (2, 'iteration')
"""
from __future__ import annotations

from chainlet.training.triggers.early_stopping_trigger import EarlyStoppingTrigger  # noqa: F401
from chainlet.training.triggers.interval_trigger import IntervalTrigger  # noqa: F401
from chainlet.training.triggers.manual_schedule_trigger import ManualScheduleTrigger  # noqa
from chainlet.training.triggers.minmax_value_trigger import BestValueTrigger  # noqa: F401
from chainlet.training.triggers.minmax_value_trigger import MaxValueTrigger  # noqa: F401
from chainlet.training.triggers.minmax_value_trigger import MinValueTrigger  # noqa: F401
from chainlet.training.triggers.once_trigger import OnceTrigger  # noqa: F401
from chainlet.training.triggers.time_trigger import TimeTrigger  # noqa: F401
