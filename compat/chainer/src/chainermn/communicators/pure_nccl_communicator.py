"""ChainerMN's module path of chainlet's communicator class."""
from chainlet.distributed.pure_nccl import PureNcclCommunicator  # noqa: F401
