"""``chainermn.links.create_mnbn_model``."""
from chainlet.distributed.links import create_mnbn_model  # noqa: F401
