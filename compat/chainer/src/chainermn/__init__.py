"""ChainerMN's API (as shipped in Chainer 7.8.1) on :mod:`chainlet.distributed`.

Every name here is chainlet's own object under ChainerMN's module path, so that code written
for ChainerMN (and libraries importing it) runs unchanged::

    import chainermn
    comm = chainermn.create_communicator('naive')
    optimizer = chainermn.create_multi_node_optimizer(chainer.optimizers.Adam(), comm)
"""
import chainer

from chainermn import communicators  # noqa: F401
from chainermn import datasets  # noqa: F401
from chainermn import extensions  # noqa: F401
from chainermn import functions  # noqa: F401
from chainermn import global_except_hook  # noqa: F401
from chainermn import iterators  # noqa: F401
from chainermn import links  # noqa: F401
from chainermn import optimizers  # noqa: F401
from chainermn.communicators import CommunicatorBase  # noqa: F401
from chainermn.communicators import create_communicator  # noqa: F401
from chainermn.datasets import DataSizeError  # noqa: F401
from chainermn.datasets import scatter_dataset  # noqa: F401
from chainermn.datasets import scatter_index  # noqa: F401
from chainermn.extensions import create_multi_node_checkpointer  # noqa: F401
from chainermn.extensions import create_multi_node_evaluator  # noqa: F401
from chainermn.links import MultiNodeChainList  # noqa: F401
from chainermn.optimizers import create_multi_node_optimizer  # noqa: F401

global_except_hook._add_hook_if_enabled()

__version__: str = getattr(chainer, '__version__')  # the Chainer release it ships with
