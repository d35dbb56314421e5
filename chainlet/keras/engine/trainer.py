"""Where ``Trainer`` used to live: it is now :class:`chainlet.keras.trainers.Trainer` (the
trainer is split by job in :mod:`chainlet.keras.trainers`); this name keeps old imports
working."""
from __future__ import annotations

from chainlet.keras.trainers.trainer import Trainer

__all__ = ['Trainer']
