"""Chainer 7's ``links.rnn.mgu`` path to :mod:`chainlet.links.connection.mgu`."""
from chainlet.links.connection.mgu import MGUBase, StatefulMGU, StatelessMGU  # noqa: F401
