"""``chainermn.links.n_step_rnn``."""
from chainlet.distributed.links import create_multi_node_n_step_rnn  # noqa: F401
from chainlet.distributed.links import MultiNodeNStepRNN as _MultiNodeNStepRNN  # noqa: F401
