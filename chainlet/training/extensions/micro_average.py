"""``MicroAverage``: report ``sum(numerator) / sum(denominator)`` over an interval.

Example:
    >>> from chainlet.training import extensions
    >>> ext = extensions.MicroAverage('main/correct', 'main/total', 'main/accuracy')
    >>> ext.priority
    200
"""
from __future__ import annotations

from typing import Any

from chainlet import reporter
from chainlet.training import extension
from chainlet.training import util
from chainlet.training.triggers.interval_trigger import forget_positions


class MicroAverage(extension.Extension):
    """Report a ratio of sums instead of a mean of ratios.

    With batches of unequal size (or per-token accuracies) the mean of per-batch ratios is
    biased; this extension sums the observed numerators and denominators and, when ``trigger``
    fires, reports ``numerator_sum / denominator_sum`` as ``result_key``.

    Args:
        numerator_key: Observation key of the numerator (e.g. number of correct answers).
        denominator_key: Observation key of the denominator (e.g. number of answers).
        result_key: Key to report the ratio under.
        trigger: The interval (default ``(1, 'epoch')``).
    """

    priority = extension.PRIORITY_EDITOR

    def __init__(self, numerator_key: str, denominator_key: str, result_key: str,
                 trigger: Any = (1, 'epoch')) -> None:
        self._trigger = util.get_trigger(trigger)
        self._numerator_key = numerator_key
        self._denominator_key = denominator_key
        self._result_key = result_key
        self._numerator = 0.0
        self._denominator = 0.0

    def __call__(self, trainer: Any) -> None:
        """Add this iteration's values; report the ratio at the end of an interval."""
        observation = trainer.observation
        if not (self._numerator_key in observation and self._denominator_key in observation):
            return
        self._numerator += _as_float(observation[self._numerator_key])
        self._denominator += _as_float(observation[self._denominator_key])
        if self._trigger(trainer):
            result = self._numerator / self._denominator
            self._numerator = 0.0
            self._denominator = 0.0
            reporter.report({self._result_key: result})

    def serialize(self, serializer: Any) -> None:
        """Save or load the running sums (Chainer's keys ``_numerator``, ``_denominator``).

        The trigger's state is not saved, as in Chainer; after a load the trigger takes its
        position from the updater, so it does not fire early on a resumed run.
        """
        forget_positions(self._trigger, serializer)
        from chainlet.serializers import Serializer
        if isinstance(serializer, Serializer):
            # Chainer starts both sums as int 0 and cannot load a float into them, so whole
            # sums (counts, the usual case) are saved as ints; Chainer can resume them then.
            serializer('_numerator', _whole_as_int(self._numerator))
            serializer('_denominator', _whole_as_int(self._denominator))
            return
        self._numerator = float(serializer('_numerator', float(self._numerator)))
        self._denominator = float(serializer('_denominator', float(self._denominator)))


def _whole_as_int(value: float) -> Any:
    return int(value) if float(value).is_integer() else value


def _as_float(value: Any) -> float:
    return float(getattr(value, 'array', value))
