"""``chainermn.links``: chainlet.distributed's links."""
from chainermn.links.batch_normalization import MultiNodeBatchNormalization  # noqa: F401
from chainermn.links.create_mnbn_model import create_mnbn_model  # noqa: F401
from chainermn.links.multi_node_chain_list import MultiNodeChainList  # noqa: F401
from chainermn.links.n_step_rnn import create_multi_node_n_step_rnn  # noqa: F401
