"""``chainermn.iterators.synchronized_iterator``."""
from chainlet.distributed.iterators import create_synchronized_iterator  # noqa: F401
