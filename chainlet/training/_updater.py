"""The updater base class (see :mod:`chainlet.training.updater`)."""
from __future__ import annotations

from typing import Any


class Updater:
    """Base class of updaters: the interface the trainer and the extensions rely on."""

    def connect_trainer(self, trainer: Any) -> None:
        """Called by the trainer's constructor (nothing to do by default)."""

    def finalize(self) -> None:
        """Release resources (e.g. iterator worker processes) at the end of training."""

    def get_optimizer(self, name: str) -> Any:
        """The optimizer registered as ``name`` (``'main'`` for the default one)."""
        raise NotImplementedError

    def get_all_optimizers(self) -> dict:
        """A dict from names to optimizers."""
        raise NotImplementedError

    def update(self) -> None:
        """Perform one update (one iteration)."""
        raise NotImplementedError

    def serialize(self, serializer: Any) -> None:
        """Save or load the updater's state (iterators, optimizers, models, iteration)."""
        raise NotImplementedError
