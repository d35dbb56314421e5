"""Chainer 7's ``links.rnn.gru`` path to :mod:`chainlet.links.connection.gru`."""
from chainlet.links.connection.gru import GRU, GRUBase, StatefulGRU, StatelessGRU  # noqa: F401
