"""``chainermn.functions.batch_normalization``: the multi-node batch normalization function."""
from chainlet.distributed.batch_normalization import multi_node_batch_normalization  # noqa: F401
from chainlet.distributed.batch_normalization import \
    MultiNodeBatchNormalizationFunction  # noqa: F401
from chainlet.distributed.batch_normalization import \
    select_communication_backend as get_communication_backend  # noqa: F401
