"""``chainermn.iterators``: chainlet.distributed's iterators."""
from chainermn.iterators.multi_node_iterator import create_multi_node_iterator  # noqa: F401
from chainermn.iterators.synchronized_iterator import create_synchronized_iterator  # noqa: F401
