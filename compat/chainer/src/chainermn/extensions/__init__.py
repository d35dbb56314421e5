"""``chainermn.extensions``: chainlet.distributed's trainer extensions."""
from chainermn.extensions._multi_node_snapshot import multi_node_snapshot  # noqa: F401
from chainermn.extensions.allreduce_persistent import AllreducePersistent  # noqa: F401
from chainermn.extensions.checkpoint import create_multi_node_checkpointer  # noqa: F401
from chainermn.extensions.multi_node_early_stopping_trigger import \
    MultiNodeEarlyStoppingTrigger  # noqa: F401
from chainermn.extensions.multi_node_evaluator import create_multi_node_evaluator  # noqa: F401
from chainermn.extensions.multi_node_evaluator import GenericMultiNodeEvaluator  # noqa: F401
from chainermn.extensions.observation_aggregator import ObservationAggregator  # noqa: F401
