"""Public functions of this family, re-exported by ``chainlet.functions``."""
from chainlet.functions.rnn.lstm import lstm  # noqa: F401
from chainlet.functions.rnn.n_step_gru import n_step_bigru, n_step_gru  # noqa: F401
from chainlet.functions.rnn.n_step_lstm import n_step_bilstm, n_step_lstm  # noqa: F401
from chainlet.functions.rnn.n_step_rnn import n_step_birnn, n_step_rnn  # noqa: F401
from chainlet.functions.rnn.slstm import slstm  # noqa: F401
from chainlet.functions.rnn.tree_lstm import tree_lstm  # noqa: F401
