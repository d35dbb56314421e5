"""``chainermn.iterators.multi_node_iterator``."""
from chainlet.distributed.iterators import build_ctrl_msg as _build_ctrl_msg  # noqa: F401
from chainlet.distributed.iterators import create_multi_node_iterator  # noqa: F401
from chainlet.distributed.iterators import parse_ctrl_msg as _parse_ctrl_msg  # noqa: F401
