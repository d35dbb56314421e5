"""``chainermn.functions.point_to_point_communication``."""
from chainlet.distributed.functions import recv, Recv  # noqa: F401
from chainlet.distributed.functions import send, Send  # noqa: F401
