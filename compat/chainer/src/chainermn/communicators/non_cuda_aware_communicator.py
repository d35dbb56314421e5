"""ChainerMN's module path of chainlet's communicator class."""
from chainlet.distributed.communicators import NonCudaAwareCommunicator  # noqa: F401
