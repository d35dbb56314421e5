"""``chainermn.extensions.observation_aggregator``."""
from chainlet.distributed.evaluation import ObservationAggregator  # noqa: F401
