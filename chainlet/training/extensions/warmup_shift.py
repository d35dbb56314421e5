"""``WarmupShift``: raise an optimizer attribute linearly during the first iterations.

Example:
    >>> from chainlet.training.extensions import WarmupShift
    >>> shift = WarmupShift('lr', 0.0, 4, init=0.1)
    >>> [round(shift._value_at(t), 6) for t in range(6)]
    [0.0, 0.025, 0.05, 0.075, 0.1, 0.1]
"""
from __future__ import annotations

from typing import Any, Optional

from chainlet.training.extensions._shift import _ShiftBase


class WarmupShift(_ShiftBase):
    """Move ``optimizer.<attr>`` from ``warmup_start`` to ``init`` in ``warmup_iter`` calls.

    After ``t`` calls the value is ``warmup_start + (init - warmup_start) * t / warmup_iter``
    while ``t <= warmup_iter``, then ``init``. Before training the attribute is set to
    ``warmup_start`` (after a resume: to the value at the snapshot).

    Args:
        attr: The optimizer attribute.
        warmup_start: The value at the start of training; the attribute's current value if
            ``None``.
        warmup_iter: Number of calls (iterations) of the warm-up.
        init: The value reached at the end of the warm-up; the attribute's current value if
            ``None``.
        optimizer: The optimizer; the updater's main optimizer if ``None``.
    """

    def __init__(self, attr: str, warmup_start: Optional[float], warmup_iter: int,
                 init: Optional[float] = None, optimizer: Any = None) -> None:
        super().__init__(attr, optimizer)
        if not warmup_iter > 0:
            raise ValueError(f'WarmupShift: argument warmup_iter: expected a positive int, got '
                             f'{warmup_iter!r}')
        self._warmup_start: Any = warmup_start  # None: the value when training starts
        self._warmup_iter = warmup_iter
        self._init: Any = init  # None: the optimizer's value when training starts

    def _start(self, optimizer: Any) -> None:
        if self._init is None:
            self._init = getattr(optimizer, self._attr)
        if self._warmup_start is None:  # Chainer: start from the attribute's current value
            self._warmup_start = getattr(optimizer, self._attr)

    def _value_at(self, t: int) -> float:
        if t >= self._warmup_iter:
            return self._init
        start = self._warmup_start
        return start + (self._init - start) * t / self._warmup_iter

    def serialize(self, serializer: Any) -> None:
        """Save or load the call count (Chainer's only key, ``_t``); after a load the value
        is recomputed from it."""
        self._serialize_count(serializer)
