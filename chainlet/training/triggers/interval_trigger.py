"""``IntervalTrigger``: fire every ``period`` iterations or epochs.

Example:
    >>> from chainlet.training.triggers import IntervalTrigger
    >>> class Updater:  # the attributes a trigger reads
    ...     iteration, epoch_detail, previous_epoch_detail = 0, 0.0, None
    >>> class Trainer:
    ...     updater = Updater()
    >>> trainer, trigger = Trainer(), IntervalTrigger(0.5, 'epoch')
    >>> fired = []
    >>> for it in range(1, 7):  # 4 iterations per epoch
    ...     u = trainer.updater
    ...     u.previous_epoch_detail = u.epoch_detail if it > 1 else None
    ...     u.iteration, u.epoch_detail = it, it / 4
    ...     fired.append(trigger(trainer))
    >>> fired
    [False, True, False, True, False, True]
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any

_UNITS = ('epoch', 'iteration')


def check_unit(owner: str, unit: Any) -> None:
    if unit not in _UNITS:
        raise ValueError(f"{owner}: argument unit: expected 'epoch' or 'iteration', got {unit!r}")


def updater_previous_epoch_detail(updater: Any) -> Any:
    """The updater's ``previous_epoch_detail`` when it has a real one (a number, or ``None``
    before the first update); ``False`` when it has none (e.g. a ``mock.Mock`` updater, whose
    attributes are Mocks)."""
    value = getattr(updater, 'previous_epoch_detail', False)
    if value is None or (isinstance(value, numbers.Real) and not isinstance(value, bool)):
        return value
    return False


def previous_positions(trigger: Any, updater: Any) -> tuple:
    """The (iteration, epoch_detail) seen at the trigger's previous call.

    After a resume from an old snapshot without them (marked by negative values) they are
    taken from the updater: one iteration back, and the updater's previous epoch detail.
    """
    previous_iteration = trigger._previous_iteration
    if previous_iteration < 0:
        previous_iteration = updater.iteration - 1
    previous_epoch_detail = trigger._previous_epoch_detail
    if previous_epoch_detail < 0:
        previous_epoch_detail = updater_previous_epoch_detail(updater) or 0.0
    return previous_iteration, previous_epoch_detail


def remember_positions(trigger: Any, updater: Any) -> None:
    trigger._previous_iteration = updater.iteration
    if hasattr(updater, 'epoch_detail'):
        trigger._previous_epoch_detail = updater.epoch_detail


def serialize_positions(trigger: Any, serializer: Any) -> None:
    name = type(trigger).__name__
    try:
        trigger._previous_iteration = int(serializer('previous_iteration',
                                                     trigger._previous_iteration))
    except KeyError:
        warnings.warn(f'{name}: the snapshot has no previous_iteration; it is guessed from the '
                      f'current iteration', stacklevel=3)
        trigger._previous_iteration = -1
    try:
        trigger._previous_epoch_detail = float(serializer('previous_epoch_detail',
                                                          trigger._previous_epoch_detail))
    except KeyError:
        warnings.warn(f'{name}: the snapshot has no previous_epoch_detail; it is guessed from '
                      f'the updater', stacklevel=3)
        trigger._previous_epoch_detail = -1.0


class IntervalTrigger:
    """Fire every ``period`` iterations or epochs.

    In ``'epoch'`` units the period may be fractional (``0.5`` fires twice per epoch): the
    trigger fires when ``epoch_detail // period`` changed since its previous call.

    Args:
        period: Length of the interval (an int, or a float for epochs).
        unit: ``'iteration'`` or ``'epoch'``.
    """

    def __init__(self, period: float, unit: str) -> None:
        check_unit('IntervalTrigger', unit)
        if not period > 0:
            raise ValueError(f'IntervalTrigger: argument period: expected a positive number, '
                             f'got {period!r}')
        self.period = period
        self.unit = unit
        self._previous_iteration = 0
        self._previous_epoch_detail = 0.0

    def __call__(self, trainer: Any) -> bool:
        """Return whether an interval boundary was crossed by the latest update.

        The answer comes from the updater's own counters (``iteration``, and
        ``epoch_detail``/``previous_epoch_detail``), not from what this trigger saw before, so
        a fresh trigger on a resumed updater fires exactly where an uninterrupted run would,
        as Chainer's does; the previous position is kept only for updaters without
        ``previous_epoch_detail``.
        """
        updater = trainer.updater
        if self.unit == 'epoch':
            epoch_detail = updater.epoch_detail
            previous = updater_previous_epoch_detail(updater)
            if previous is False:  # the updater does not say: use what this trigger saw
                previous_epoch_detail = previous_positions(self, updater)[1]
            else:
                previous_epoch_detail = 0.0 if previous is None else previous
            fire = previous_epoch_detail // self.period != epoch_detail // self.period
        else:
            iteration = updater.iteration
            fire = iteration > 0 and (iteration - 1) // self.period != iteration // self.period
        remember_positions(self, updater)
        return bool(fire)

    def serialize(self, serializer: Any) -> None:
        """Save or load the position seen at the previous call."""
        serialize_positions(self, serializer)

    def get_training_length(self) -> tuple:
        """``(period, unit)``: used by ``ProgressBar`` when this is the stop trigger."""
        return self.period, self.unit

    def __repr__(self) -> str:
        return f'IntervalTrigger({self.period}, {self.unit!r})'

    __str__ = __repr__
