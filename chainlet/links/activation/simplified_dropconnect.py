"""Chainer's module path for :class:`SimplifiedDropconnect` (chainlet defines it with the
connection links, in ``links.connection.simplified_dropconnect``)."""
from chainlet.links.connection.simplified_dropconnect import SimplifiedDropconnect  # noqa: F401
