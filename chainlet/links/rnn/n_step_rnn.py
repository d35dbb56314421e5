"""Chainer 7's ``links.rnn.n_step_rnn`` path to :mod:`chainlet.links.connection.n_step_rnn`."""
from chainlet.links.connection.n_step_rnn import (  # noqa: F401
    NStepBiRNNReLU, NStepBiRNNTanh, NStepRNNBase, NStepRNNReLU, NStepRNNTanh, argsort_list_descent,
    permutate_list)
