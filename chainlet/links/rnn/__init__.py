"""Recurrent links under Chainer 7's module layout (``chainer.links.rnn.lstm`` ...).

Chainer 7 moved its recurrent links from ``chainer.links.connection`` to
``chainer.links.rnn``; code written for either layout imports them from here or from
:mod:`chainlet.links.connection` and gets the same classes.
"""
from chainlet.links.connection.gru import GRU, StatefulGRU, StatelessGRU  # noqa: F401
from chainlet.links.connection.lstm import LSTM, StatelessLSTM  # noqa: F401
from chainlet.links.connection.mgu import StatefulMGU, StatelessMGU  # noqa: F401
from chainlet.links.connection.n_step_gru import NStepBiGRU, NStepGRU  # noqa: F401
from chainlet.links.connection.n_step_lstm import NStepBiLSTM, NStepLSTM  # noqa: F401
from chainlet.links.connection.n_step_rnn import (  # noqa: F401
    NStepBiRNNReLU, NStepBiRNNTanh, NStepRNNReLU, NStepRNNTanh)
from chainlet.links.connection.peephole import StatefulPeepholeLSTM  # noqa: F401
from chainlet.links.connection.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM  # noqa: F401
from chainlet.links.connection.zoneoutlstm import StatefulZoneoutLSTM  # noqa: F401
from chainlet.links.rnn import (  # noqa: F401,E402  (the submodules as attributes, as in Chainer)
    gru, lstm, mgu, n_step_gru, n_step_lstm, n_step_rnn, peephole, tree_lstm, zoneoutlstm)
