"""Chainer 7's ``links.rnn.tree_lstm`` path to :mod:`chainlet.links.connection.tree_lstm`."""
from chainlet.links.connection.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM  # noqa: F401
