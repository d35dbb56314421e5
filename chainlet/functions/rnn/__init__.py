"""Recurrent functions: LSTM cells and stacked multi-step RNN, LSTM and GRU.

As in Chainer, the attributes of this package are its modules: ``chainlet.functions.rnn.X``
is the module that defines the function ``X`` and its FunctionNode classes. The functions are
re-exported by :mod:`chainlet.functions` (from ``_exports``).
"""
from chainlet.functions.rnn import lstm  # noqa: F401
from chainlet.functions.rnn import n_step_gru  # noqa: F401
from chainlet.functions.rnn import n_step_lstm  # noqa: F401
from chainlet.functions.rnn import n_step_rnn  # noqa: F401
from chainlet.functions.rnn import slstm  # noqa: F401
from chainlet.functions.rnn import tree_lstm  # noqa: F401
