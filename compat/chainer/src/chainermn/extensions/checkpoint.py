"""``chainermn.extensions.checkpoint``."""
from chainlet.distributed.checkpoint import CheckpointStats as _CheckpointStats  # noqa: F401
from chainlet.distributed.checkpoint import create_multi_node_checkpointer  # noqa: F401
from chainlet.distributed.checkpoint import \
    MultiNodeCheckpointer as _MultiNodeCheckpointer  # noqa: F401
