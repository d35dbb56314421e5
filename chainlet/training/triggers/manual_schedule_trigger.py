"""``ManualScheduleTrigger``: fire at listed iterations or epochs.

Example:
    >>> from chainlet.training.triggers import ManualScheduleTrigger
    >>> class Updater:
    ...     iteration, epoch_detail, previous_epoch_detail = 0, 0.0, None
    >>> class Trainer:
    ...     updater = Updater()
    >>> trainer, trigger = Trainer(), ManualScheduleTrigger([2, 5], 'iteration')
    >>> fired = []
    >>> for it in range(1, 7):
    ...     trainer.updater.iteration = it
    ...     fired.append(trigger(trainer))
    >>> fired, trigger.finished
    ([False, True, False, False, True, False], True)
"""
from __future__ import annotations

import warnings
from typing import Any, Sequence, Union

from chainlet.training.triggers.interval_trigger import (check_unit, previous_positions,
                                                         remember_positions,
                                                         serialize_positions)


class ManualScheduleTrigger:
    """Fire when a listed point is passed.

    A point ``p`` fires at the first call where ``previous < p <= current`` (current is the
    iteration or the epoch detail), so fractional epoch points work. :attr:`finished` becomes
    ``True`` once the last point fired (the trainer then skips the extension's ``initialize``
    after a resume).

    Args:
        points: A point or a list of points.
        unit: ``'iteration'`` or ``'epoch'``.
    """

    def __init__(self, points: Union[float, Sequence[float]], unit: str) -> None:
        check_unit('ManualScheduleTrigger', unit)
        self.points: list = list(points) if isinstance(points, (list, tuple)) else [points]
        if not self.points:
            raise ValueError('ManualScheduleTrigger: argument points: expected at least one '
                             'point, got an empty list')
        self.unit = unit
        self.finished = False
        self._guess_finished = False  # set when a snapshot lacked the flag
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0

    def __call__(self, trainer: Any) -> bool:
        """Return whether a point lies in (previous call, now]."""
        updater = trainer.updater
        previous_iteration, previous_epoch_detail = previous_positions(self, updater)
        if self.unit == 'epoch':
            previous, current = previous_epoch_detail, updater.epoch_detail
        else:
            previous, current = previous_iteration, updater.iteration
        fire = any(previous < p <= current for p in self.points)
        if (fire or self._guess_finished) and current >= max(self.points):
            self.finished = True
        self._guess_finished = False
        remember_positions(self, updater)
        return fire

    def serialize(self, serializer: Any) -> None:
        """Save or load the previous position and :attr:`finished`.

        Snapshots of older versions lack these; they load with a warning, the position is then
        taken from the updater and :attr:`finished` from the position at the next call.
        """
        serialize_positions(self, serializer)
        try:
            self.finished = bool(serializer('finished', self.finished))
        except KeyError:
            warnings.warn('ManualScheduleTrigger: the snapshot has no finished flag; it is set '
                          'from the position at the next call', stacklevel=2)
            self.finished = False
            self._guess_finished = True

    def get_training_length(self) -> tuple:
        """``(last point, unit)``."""
        return max(self.points), self.unit
