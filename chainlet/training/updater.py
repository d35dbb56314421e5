"""The :class:`Updater` interface (and Chainer's re-exports of the concrete updaters).

An updater owns the iterators and optimizers of a training run and performs one update per
:meth:`Updater.update` call; the :class:`~chainlet.training.Trainer` reads its progress
(``iteration``, ``epoch``, ``epoch_detail``, ``previous_epoch_detail``, ``is_new_epoch``).

Example:
    >>> from chainlet.training import updater
    >>> issubclass(updater.StandardUpdater, updater.Updater)
    True
"""
from __future__ import annotations

from chainlet.training._updater import Updater  # noqa: F401
from chainlet.training.updaters.parallel_updater import ParallelUpdater  # noqa: F401
from chainlet.training.updaters.standard_updater import StandardUpdater  # noqa: F401
