"""ChainerMN's module path of chainlet's communicator class."""
# As ChainerMN's module, importing it initializes MPI (code uses mpi4py.MPI right after).
import mpi4py.MPI  # noqa: F401

from chainlet.distributed.communicators import HierarchicalCommunicator  # noqa: F401
