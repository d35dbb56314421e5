"""``chainermn.extensions.multi_node_evaluator``."""
from chainlet.distributed.evaluation import GenericMultiNodeEvaluator  # noqa: F401
from chainlet.distributed.extensions import create_multi_node_evaluator  # noqa: F401
