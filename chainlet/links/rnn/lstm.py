"""Chainer 7's ``links.rnn.lstm`` path to :mod:`chainlet.links.connection.lstm`."""
from chainlet.links.connection.lstm import LSTM, LSTMBase, StatelessLSTM  # noqa: F401
