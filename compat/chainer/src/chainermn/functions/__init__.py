"""``chainermn.functions``: chainlet.distributed's differentiable communication."""
from chainermn.functions.collective_communication import allgather  # noqa: F401
from chainermn.functions.collective_communication import alltoall  # noqa: F401
from chainermn.functions.collective_communication import bcast  # noqa: F401
from chainermn.functions.collective_communication import gather  # noqa: F401
from chainermn.functions.collective_communication import scatter  # noqa: F401
from chainermn.functions.point_to_point_communication import recv  # noqa: F401
from chainermn.functions.point_to_point_communication import send  # noqa: F401
from chainermn.functions.pseudo_connect import pseudo_connect  # noqa: F401
