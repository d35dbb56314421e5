"""Chainer 7's ``links.rnn.zoneoutlstm`` path to :mod:`chainlet.links.connection.zoneoutlstm`."""
from chainlet.links.connection.zoneoutlstm import StatefulZoneoutLSTM  # noqa: F401
