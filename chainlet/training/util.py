"""Helpers shared by the training framework: :func:`get_trigger`.

Example:
    >>> from chainlet.training import util
    >>> util.get_trigger((2, 'epoch'))
    IntervalTrigger(2, 'epoch')
    >>> util.get_trigger(None)(None)
    False
"""
from __future__ import annotations

from typing import Any, Callable


def _never_fire_trigger(trainer: Any) -> bool:
    return False


def get_trigger(trigger: Any) -> Callable[[Any], bool]:
    """Turn a trigger specification into a trigger object.

    Args:
        trigger: A callable ``trigger(trainer) -> bool`` (returned as it is), ``None`` (a trigger
            that never fires) or a ``(period, unit)`` tuple such as ``(1, 'epoch')``, which
            becomes an :class:`~chainlet.training.triggers.IntervalTrigger`.

    Returns:
        A callable that takes the trainer and returns whether to fire.

    Raises:
        TypeError: ``trigger`` is neither callable, ``None`` nor a ``(period, unit)`` pair.
    """
    if callable(trigger):
        return trigger
    if trigger is None:
        return _never_fire_trigger
    if not isinstance(trigger, (tuple, list)) or len(trigger) != 2:
        raise TypeError(f'get_trigger: argument trigger: expected a callable, None or a '
                        f"(period, unit) pair such as (1, 'epoch'), got {trigger!r}")
    from chainlet.training.triggers.interval_trigger import IntervalTrigger
    return IntervalTrigger(*trigger)
