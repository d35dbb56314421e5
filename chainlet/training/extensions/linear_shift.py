"""``LinearShift``: move an optimizer attribute linearly between two values.

Example:
    >>> from chainlet.training.extensions import LinearShift
    >>> shift = LinearShift('lr', (1.0, 0.0), (2, 6))
    >>> [shift._value_at(t) for t in range(8)]
    [1.0, 1.0, 1.0, 0.75, 0.5, 0.25, 0.0, 0.0]
"""
from __future__ import annotations

from typing import Any, Tuple

from chainlet.training.extensions._shift import _ShiftBase


class LinearShift(_ShiftBase):
    """Set ``optimizer.<attr>`` by linear interpolation over the call count ``t``.

    The value is ``v1`` while ``t <= t1``, ``v2`` once ``t >= t2``, and linear in between.

    Args:
        attr: The optimizer attribute.
        value_range: ``(v1, v2)``.
        time_range: ``(t1, t2)`` in calls of the extension (iterations with the default
            trigger).
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, value_range: Tuple[float, float],
                 time_range: Tuple[int, int], optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        if time_range[1] <= time_range[0]:
            raise ValueError(f'LinearShift: argument time_range: expected t1 < t2, got '
                             f'{tuple(time_range)}')
        self._value_range = value_range
        self._time_range = time_range

    def _value_at(self, t: int) -> float:
        (t1, t2), (v1, v2) = self._time_range, self._value_range
        if t <= t1:
            return v1
        if t >= t2:
            return v2
        return v1 + (t - t1) / (t2 - t1) * (v2 - v1)
