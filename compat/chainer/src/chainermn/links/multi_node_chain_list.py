"""``chainermn.links.multi_node_chain_list``."""
from chainlet.distributed.links import MultiNodeChainList  # noqa: F401
