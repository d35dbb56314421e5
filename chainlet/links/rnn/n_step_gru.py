"""Chainer 7's ``links.rnn.n_step_gru`` path to :mod:`chainlet.links.connection.n_step_gru`."""
from chainlet.links.connection.n_step_gru import NStepBiGRU, NStepGRU, NStepGRUBase  # noqa
