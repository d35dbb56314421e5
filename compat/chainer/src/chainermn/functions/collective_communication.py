"""``chainermn.functions.collective_communication``."""
from chainlet.distributed.functions import allgather, AllGather  # noqa: F401
from chainlet.distributed.functions import alltoall, AllToAll  # noqa: F401
from chainlet.distributed.functions import bcast, Bcast  # noqa: F401
from chainlet.distributed.functions import gather, Gather  # noqa: F401
from chainlet.distributed.functions import scatter, Scatter  # noqa: F401
