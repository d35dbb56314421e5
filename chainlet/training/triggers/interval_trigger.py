"""``IntervalTrigger``: fire every ``period`` iterations or epochs.

Example:
    >>> from chainlet.training.triggers import IntervalTrigger
    >>> class Updater:  # the attributes a trigger reads
    ...     iteration, epoch_detail = 0, 0.0
    >>> class Trainer:
    ...     updater = Updater()
    >>> trainer, trigger = Trainer(), IntervalTrigger(0.5, 'epoch')
    >>> fired = []
    >>> for it in (1, 2, 3, 7, 8):  # 4 iterations per epoch; not called at 4, 5 and 6
    ...     trainer.updater.iteration, trainer.updater.epoch_detail = it, it / 4
    ...     fired.append(trigger(trainer))
    >>> fired  # at 7 it fires for the boundary passed at 4 (and 6) since its previous call
    [False, True, False, True, True]
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

    When they are unknown (negative: loaded from a snapshot without them, or forgotten by
    :func:`forget_positions`) they are taken from the updater, as Chainer does: one iteration
    back, and the updater's previous epoch detail. That guess is exact for a trigger called
    at every iteration.
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


def forget_positions(trigger: Any, serializer: Any) -> None:
    """After loading with ``serializer``, mark the previous position of ``trigger`` unknown.

    Extensions such as ``MicroAverage`` or ``PlotReport`` keep an interval trigger inside and,
    as in Chainer, do not save its state. A fresh trigger remembers position 0, so on a
    resumed run it would fire at its first call; marked unknown, it takes the position from
    the updater instead (see :func:`previous_positions`), which is right for these extensions
    because they are called at every iteration. Saving (``serializer`` is a ``Serializer``)
    and triggers without positions are left alone.
    """
    from chainlet.serializers import Serializer
    if isinstance(serializer, Serializer) or not hasattr(trigger, '_previous_iteration'):
        return
    trigger._previous_iteration = -1
    trigger._previous_epoch_detail = -1.0


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
        # Chainer keeps ``count`` (epochs // period at the last call) for old user code.
        self.count = 0

    def __call__(self, trainer: Any) -> bool:
        """Return whether an interval boundary was crossed since this trigger's previous call.

        As in Chainer, the trigger compares the updater's position now with the one it saw at
        its own previous call (position 0 for a new trigger), so a trigger that is called
        only now and then (inside an extension with a coarser trigger) still fires at its
        next call after a boundary was passed. Its position is part of trainer snapshots.
        """
        updater = trainer.updater
        previous_iteration, previous_epoch_detail = previous_positions(self, updater)
        if self.unit == 'epoch':
            epoch_detail = updater.epoch_detail
            self.count = epoch_detail // self.period
            fire = previous_epoch_detail // self.period != epoch_detail // self.period
        else:
            fire = previous_iteration // self.period != updater.iteration // self.period
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
