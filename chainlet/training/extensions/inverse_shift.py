"""Chainer's module path for :class:`InverseShift`.

chainlet keeps the three optimizer-initialised schedules together in ``more_shifts``; this
module re-exports the class so that imports by Chainer's module path keep working.
"""
from chainlet.training.extensions.more_shifts import InverseShift  # noqa: F401
