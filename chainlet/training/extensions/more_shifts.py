"""``InverseShift``, ``PolynomialShift`` and ``MultistepShift``: more attribute schedules.

Example:
    >>> from chainlet.training.extensions import MultistepShift, PolynomialShift
    >>> shift = MultistepShift('lr', 0.1, [2, 4], init=1.0)
    >>> [round(shift._value_at(t), 6) for t in range(6)]
    [1.0, 1.0, 0.1, 0.1, 0.01, 0.01]
    >>> poly = PolynomialShift('lr', 2.0, 4)
    >>> poly._init = 1.0
    >>> [poly._value_at(t) for t in range(6)]
    [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
"""
from __future__ import annotations

import bisect
from typing import Any, Optional, Sequence

from chainlet.training.extensions._shift import _ShiftBase, clip_to_target


class _InitFromOptimizer(_ShiftBase):
    _init: Optional[float]

    def _start(self, optimizer: Any) -> None:
        if self._init is None:
            self._init = getattr(optimizer, self._attr)


class InverseShift(_InitFromOptimizer):
    """Set ``optimizer.<attr>`` to ``init * (1 + gamma * t) ** (-power)`` after t calls.

    Args:
        attr: The optimizer attribute.
        gamma: Growth of the denominator per call.
        power: Exponent of the decay.
        init: The initial value; the attribute's current value if ``None``.
        target: A bound at which the value stops changing.
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, gamma: float, power: float, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        if gamma < 0:
            raise ValueError(f'InverseShift: argument gamma: expected a non-negative number, '
                             f'got {gamma!r}')
        self._gamma = gamma
        self._power = power
        self._init: Any = init  # None: the optimizer's value when training starts
        self._target = target

    def _value_at(self, t: int) -> float:
        value = self._init * (1 + self._gamma * t) ** (-self._power)
        return clip_to_target(value, self._target, self._power < 0)


class PolynomialShift(_InitFromOptimizer):
    """Set ``optimizer.<attr>`` to ``init * (1 - t / max_count) ** rate`` (0 after
    ``max_count`` calls).

    Args:
        attr: The optimizer attribute.
        rate: Exponent of the decay.
        max_count: Number of calls until the value reaches 0 (e.g. the number of
            iterations).
        init: The initial value; the attribute's value when training starts if ``None``.
        target: A bound at which the value stops changing.
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, rate: float, max_count: int, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        if not max_count > 0:
            raise ValueError(f'PolynomialShift: argument max_count: expected a positive int, '
                             f'got {max_count!r}')
        self._rate = rate
        self._max_count = max_count
        self._target = target
        self._init: Any = init  # None: the optimizer's value when training starts

    def _value_at(self, t: int) -> float:
        decay = max(1 - t / self._max_count, 0.0)
        value = self._init * decay ** self._rate
        if self._target is None:
            return value
        shrinking = self._rate > 0
        return max(value, self._target) if shrinking == (self._init > 0) \
            else min(value, self._target)


class MultistepShift(_InitFromOptimizer):
    """Multiply ``optimizer.<attr>`` by ``gamma`` at each of the listed call counts.

    After t calls the value is ``init * gamma ** k`` where ``k`` is the number of entries of
    ``step_value`` that are ``<= t``.

    Args:
        attr: The optimizer attribute.
        gamma: The factor applied at each step.
        step_value: Call counts (e.g. iterations) at which to apply it, ascending.
        init: The initial value; the attribute's current value if ``None``.
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, gamma: float, step_value: Sequence[int],
                 init: Optional[float] = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        self._gamma = gamma
        self._step_value = sorted(step_value)
        self._init: Any = init  # None: the optimizer's value when training starts

    def _value_at(self, t: int) -> float:
        return self._init * self._gamma ** bisect.bisect_right(self._step_value, t)

    def serialize(self, serializer: Any) -> None:
        """Save or load Chainer's keys ``_t`` and ``_current_step`` (the number of steps
        passed); after a load the value is recomputed from ``_t``."""
        self._serialize_count(serializer)
        serializer('_current_step', bisect.bisect_right(self._step_value, self._t))
