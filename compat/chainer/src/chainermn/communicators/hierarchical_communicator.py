"""ChainerMN's module path of chainlet's communicator class."""
from chainlet.distributed.communicators import HierarchicalCommunicator  # noqa: F401
