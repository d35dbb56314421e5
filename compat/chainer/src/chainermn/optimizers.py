"""``chainermn.optimizers``: chainlet's multi-node optimizer with ChainerMN's first update."""
from typing import Any

from chainlet.distributed import optimizers as _optimizers


def create_multi_node_optimizer(actual_optimizer: Any, communicator: Any,
                                double_buffering: bool = False, zero_fill: bool = True) -> Any:
    """:func:`chainlet.distributed.create_multi_node_optimizer` with ChainerMN's rule: the
    first ``update()`` after each ``setup()`` broadcasts rank 0's parameters and updates
    nothing."""
    return _optimizers.create_multi_node_optimizer(
        actual_optimizer, communicator, double_buffering, zero_fill, broadcast_on_setup=False)
