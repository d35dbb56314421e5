"""Updaters: how one training iteration is performed.

Example:
    >>> from chainlet.training import updaters
    >>> updaters.StandardUpdater.__name__, updaters.ParallelUpdater.__name__
    ('StandardUpdater', 'ParallelUpdater')
"""
from __future__ import annotations

from chainlet.training.updaters.parallel_updater import ParallelUpdater  # noqa: F401
from chainlet.training.updaters.standard_updater import StandardUpdater  # noqa: F401
