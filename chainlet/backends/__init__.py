"""Chainer's ``chainer.backends`` package: ``cuda`` for scripts ported from Chainer."""
from chainlet.backends import cuda  # noqa: F401
