"""``chainermn.extensions._multi_node_snapshot``."""
from chainlet.distributed.snapshot import multi_node_snapshot  # noqa: F401
from chainlet.distributed.snapshot import MultiNodeSnapshot as _MultiNodeSnapshot  # noqa: F401
from chainlet.distributed.snapshot import parse_replica_sets as _parse_replica_sets  # noqa: F401
