"""``StepShift``: multiply an optimizer attribute by ``gamma`` every ``step`` calls.

Example:
    >>> from chainlet.training.extensions import StepShift
    >>> shift = StepShift('lr', 0.1, 2, init=1.0)
    >>> [round(shift._value_at(t), 6) for t in range(6)]
    [1.0, 1.0, 0.1, 0.1, 0.01, 0.01]
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.training.extensions._shift import _ShiftBase, clip_to_target


class StepShift(_ShiftBase):
    """Set ``optimizer.<attr>`` to ``init * gamma ** (t // step)`` after the t-th call.

    Args:
        attr: The optimizer attribute.
        gamma: The factor applied every ``step`` calls.
        step: Number of calls between two changes.
        init: The initial value; the attribute's current value if ``None``.
        target: A bound at which the value stops changing.
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, gamma: float, step: int, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        if not step > 0:
            raise ValueError(f'StepShift: argument step: expected a positive int, got {step!r}')
        self._gamma = gamma
        self._step = step
        self._init: Any = init  # None: the optimizer's value when training starts
        self._target = target

    def _start(self, optimizer: Any) -> None:
        if self._init is None:
            self._init = getattr(optimizer, self._attr)

    def _value_at(self, t: int) -> float:
        value = self._init * self._gamma ** (t // self._step)
        return clip_to_target(value, self._target, self._gamma > 1)
