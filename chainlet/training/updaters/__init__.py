"""Updaters: how one training iteration is performed.

Example:
    >>> from chainlet.training import updaters
    >>> updaters.StandardUpdater.__name__
    'StandardUpdater'
"""
from __future__ import annotations

from chainlet.training.updaters.standard_updater import StandardUpdater  # noqa: F401
