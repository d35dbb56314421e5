"""Chainer's module path for :class:`PolynomialShift`.

chainlet keeps the three optimizer-initialised schedules together in ``more_shifts``; this
module re-exports the class so that imports by Chainer's module path keep working.
"""
from chainlet.training.extensions.more_shifts import PolynomialShift  # noqa: F401
