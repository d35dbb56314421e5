"""``TimeTrigger``: fire every ``period`` seconds of training time.

Example:
    >>> from chainlet.training.triggers import TimeTrigger
    >>> class Trainer:
    ...     elapsed_time = 0.0
    >>> trainer, trigger = Trainer(), TimeTrigger(10.0)
    >>> fired = []
    >>> for t in (5.0, 10.5, 12.0, 21.0):
    ...     trainer.elapsed_time = t
    ...     fired.append(trigger(trainer))
    >>> fired
    [False, True, False, True]
"""
from __future__ import annotations

from typing import Any


class TimeTrigger:
    """Fire when ``trainer.elapsed_time`` passed the next multiple of ``period`` seconds.

    When one iteration spans several multiples the trigger fires once, not once per multiple.

    Args:
        period: Interval in seconds.
    """

    def __init__(self, period: float) -> None:
        if not period > 0:
            raise ValueError(f'TimeTrigger: argument period: expected a positive number of '
                             f'seconds, got {period!r}')
        # The period keeps its type, as in Chainer: a snapshot of an int period stores an int
        # ``next_time``, which Chainer's own trigger (int there too) can load back.
        self._period = period
        self._next_time = period

    def __call__(self, trainer: Any) -> bool:
        """Return whether the next multiple of the period was reached."""
        elapsed = trainer.elapsed_time
        if self._next_time > elapsed:
            return False
        # After a long iteration skip the missed multiples instead of firing once per multiple.
        while self._next_time <= elapsed:
            self._next_time += self._period
        return True

    def serialize(self, serializer: Any) -> None:
        """Save or load the time of the next firing (Chainer's key ``next_time``)."""
        from chainlet.serializers import Serializer
        if isinstance(serializer, Serializer):
            serializer('next_time', self._next_time)
            return
        # Read as a float so that an int or a float stored time loads into either kind.
        loaded = float(serializer('next_time', float(self._next_time)))
        is_int = isinstance(self._next_time, int) and loaded.is_integer()
        self._next_time = int(loaded) if is_int else loaded
