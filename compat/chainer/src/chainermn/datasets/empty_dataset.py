"""``chainermn.datasets.empty_dataset``."""
from chainlet.distributed.datasets import create_empty_dataset  # noqa: F401
