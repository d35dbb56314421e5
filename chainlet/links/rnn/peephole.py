"""Chainer 7's ``links.rnn.peephole`` path to :mod:`chainlet.links.connection.peephole`."""
from chainlet.links.connection.peephole import StatefulPeepholeLSTM  # noqa: F401
