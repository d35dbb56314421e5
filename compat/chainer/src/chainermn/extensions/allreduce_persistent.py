"""``chainermn.extensions.allreduce_persistent``."""
from chainlet.distributed.extensions import AllreducePersistent  # noqa: F401
