"""``chainermn.links.batch_normalization``."""
from chainlet.distributed.batch_normalization import MultiNodeBatchNormalization  # noqa: F401
