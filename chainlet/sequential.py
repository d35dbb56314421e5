"""Chainer's ``chainer.sequential`` module: :class:`Sequential` (defined in
:mod:`chainlet.link`)."""
from chainlet.link import Sequential  # noqa: F401
