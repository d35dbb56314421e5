"""Chainer's ``chainer.backends`` package: ``cuda`` (CuPy), ``intel64`` (iDeep, reported as
unavailable), ``_cpu`` (also ``cpu``) and ``_chainerx`` (ChainerX, reported as unavailable).

Example:
    >>> from chainlet import backends
    >>> backends.intel64.is_ideep_available()
    False
"""
from chainlet.backends import _chainerx, _cpu, cpu, cuda, intel64  # noqa: F401
