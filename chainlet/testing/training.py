"""``get_trainer_with_mock_updater``: a Trainer whose updater only counts iterations.

It lets tests of triggers and extensions run a :class:`~chainlet.training.Trainer` without a
model: each update advances ``iteration``, ``epoch``, ``epoch_detail``, ``is_new_epoch`` and
``previous_epoch_detail`` as a real updater with ``iter_per_epoch`` iterations per epoch
would (``iter_per_epoch`` may be fractional).

Example:
    >>> from chainlet import testing
    >>> trainer = testing.get_trainer_with_mock_updater((3, 'iteration'), iter_per_epoch=2)
    >>> trainer.run()
    >>> trainer.updater.iteration, trainer.updater.epoch_detail
    (3, 1.5)
"""
from __future__ import annotations

from typing import Any


def get_trainer_with_mock_updater(stop_trigger: Any = (10, 'iteration'),
                                  iter_per_epoch: float = 10,
                                  extensions: Any = None) -> Any:
    """Return a :class:`~chainlet.training.Trainer` driven by a mock updater.

    Args:
        stop_trigger: Stop trigger of the trainer.
        iter_per_epoch: Iterations per epoch the updater pretends to have.
        extensions: Extensions registered to the trainer.

    Returns:
        The trainer; ``trainer.updater`` is a ``unittest.mock.Mock`` whose ``update_core``
        records the calls.
    """
    from unittest import mock

    from chainlet import training

    if extensions is None:
        extensions = []
    updater = mock.Mock()
    updater.get_all_optimizers.return_value = {}
    updater.iteration = 0
    updater.epoch = 0
    updater.epoch_detail = 0
    updater.is_new_epoch = True
    updater.previous_epoch_detail = None

    def update() -> None:
        updater.update_core()
        updater.iteration += 1
        updater.epoch = updater.iteration // iter_per_epoch
        updater.epoch_detail = updater.iteration / iter_per_epoch
        updater.is_new_epoch = (updater.iteration - 1) // iter_per_epoch != updater.epoch
        updater.previous_epoch_detail = (updater.iteration - 1) / iter_per_epoch

    updater.update = update
    return training.Trainer(updater, stop_trigger, extensions=extensions)


# Chainer's availability probe of this helper (it needed the ``mock`` package); chainlet uses
# the standard library's ``unittest.mock``, so it is always available.
def is_available() -> bool:
    """Whether :func:`get_trainer_with_mock_updater` can be used (always, here)."""
    return True


def check_available() -> None:
    """Raise ``RuntimeError`` if this helper cannot be used (it always can, here)."""


def get_error() -> None:
    """The import error that makes this helper unavailable: ``None``, as it always works."""
    return None
