"""``ExponentialShift``: multiply an optimizer attribute by a constant rate at every call.

Example:
    >>> from chainlet.training.extensions import ExponentialShift
    >>> shift = ExponentialShift('lr', 0.5, init=1.0, target=0.2)
    >>> [shift._value_at(t) for t in range(4)]
    [1.0, 0.5, 0.25, 0.2]
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.training.extensions._shift import _ShiftBase, clip_to_target


class ExponentialShift(_ShiftBase):
    """Set ``optimizer.<attr>`` to ``init * rate ** t`` after the t-th call.

    Typical use: ``trainer.extend(ExponentialShift('lr', 0.1), trigger=(30, 'epoch'))``.
    Before training (in ``initialize``) the attribute is set to ``init`` (or, after a resume,
    to the value it had when the snapshot was taken).

    Args:
        attr: The optimizer attribute, e.g. ``'lr'`` or ``'alpha'`` (Adam).
        rate: The factor per call (>= 0).
        init: The initial value; the attribute's current value if ``None``.
        target: A bound at which the value stops changing.
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, rate: float, init: Optional[float] = None,
                 target: Optional[float] = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        if rate < 0:
            raise ValueError(f'ExponentialShift: argument rate: expected a non-negative number, '
                             f'got {rate!r}')
        self._rate = rate
        self._init: Any = init  # None: the optimizer's value when training starts
        self._target = target

    def _start(self, optimizer: Any) -> None:
        if self._init is None:
            self._init = getattr(optimizer, self._attr)

    def _value_at(self, t: int) -> float:
        value = self._init * self._rate ** t
        return clip_to_target(value, self._target, self._rate > 1)
