"""``chainermn.extensions.multi_node_early_stopping_trigger``."""
from chainlet.distributed.evaluation import MultiNodeEarlyStoppingTrigger  # noqa: F401
