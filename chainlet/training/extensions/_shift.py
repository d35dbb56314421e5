"""The base of the extensions that schedule an optimizer attribute (``lr``, ``alpha``, ...)."""
from __future__ import annotations

from typing import Any, Optional

from chainlet.training import extension


class _ShiftBase(extension.Extension):
    """Keeps the call count ``_t`` and the last value set, and restores it on resume.

    Subclasses implement :meth:`_value_at` (the value after ``t`` calls) and may override
    :meth:`_start` (resolve defaults from the optimizer before training).
    """

    def __init__(self, attr: str, optimizer: Any = None) -> None:
        if not isinstance(attr, str):
            raise TypeError(f'{type(self).__name__}: argument attr: expected the name of an '
                            f'optimizer attribute (a str), got {type(attr).__name__}')
        self._attr = attr
        self._optimizer = optimizer
        self._t = 0
        self._last_value: Optional[float] = None

    def _get_optimizer(self, trainer: Any) -> Any:
        return self._optimizer or trainer.updater.get_optimizer('main')

    def _start(self, optimizer: Any) -> None:
        """Resolve defaults that depend on the optimizer (called by :meth:`initialize`)."""

    def _value_at(self, t: int) -> float:
        raise NotImplementedError

    def _update_value(self, optimizer: Any, value: float) -> None:
        setattr(optimizer, self._attr, value)
        self._last_value = value

    def initialize(self, trainer: Any) -> None:
        """Set the attribute to its scheduled value: the start value, or after a resume the
        value the snapshot was taken with."""
        optimizer = self._get_optimizer(trainer)
        self._start(optimizer)
        if self._last_value is not None:
            self._update_value(optimizer, self._last_value)
        else:
            self._update_value(optimizer, self._value_at(self._t))

    def __call__(self, trainer: Any) -> None:
        """Advance the schedule by one step and set the attribute."""
        self._t += 1
        self._update_value(self._get_optimizer(trainer), self._value_at(self._t))

    def serialize(self, serializer: Any) -> None:
        """Save or load the step count and the last value (Chainer's keys ``_t`` and
        ``_last_value``)."""
        self._t = int(serializer('_t', self._t))
        last = serializer('_last_value', self._last_value)
        self._last_value = None if last is None else float(last)

    def _serialize_count(self, serializer: Any) -> None:
        """Save or load only ``_t`` (for schedules whose Chainer form saves no value): after a
        load, ``initialize`` sets the value the schedule has after ``_t`` calls."""
        self._t = int(serializer('_t', self._t))
        if not _is_serializer(serializer):
            self._last_value = None


def _is_serializer(serializer: Any) -> bool:
    from chainlet.serializers import Serializer
    return isinstance(serializer, Serializer)


def clip_to_target(value: float, target: Optional[float], growing: bool) -> float:
    """Stop a growing (shrinking) schedule at ``target``; also works for negative values."""
    if target is None:
        return value
    if growing:
        return target if value / target > 1 else value
    return target if value / target < 1 else value
