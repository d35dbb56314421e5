"""``chainermn.communicators.communicator_base``: chainlet's class under ChainerMN's path."""
from chainlet.distributed.communicators import CommunicatorBase  # noqa: F401
