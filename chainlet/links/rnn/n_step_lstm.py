"""Chainer 7's ``links.rnn.n_step_lstm`` path to :mod:`chainlet.links.connection.n_step_lstm`."""
from chainlet.links.connection.n_step_lstm import (  # noqa: F401
    NStepBiLSTM, NStepLSTM, NStepLSTMBase)
