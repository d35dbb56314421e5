"""Data-parallel training on many processes and machines with MPI (ChainerMN's API).

Run the same script on every process with ``mpiexec -n 4 python train.py``; each process
trains on its own shard of the data and the gradients are averaged before every update, so all
processes keep identical parameters::

    import chainlet.distributed as cmn
    comm = cmn.create_communicator('flat')         # also: one failing process stops the job
    train = get_digits()[0] if comm.rank == 0 else None
    train = cmn.scatter_dataset(train, comm, shuffle=True, seed=0)
    optimizer = cmn.create_multi_node_optimizer(chainlet.optimizers.Adam(), comm)
    optimizer.setup(model)

MPI comes from mpi4py (``pip install "chainlet-dl[mpi]"`` installs it with MPICH); it is imported
when the first communicator is created, never by ``import chainlet.distributed``. See
``docs/distributed.md``.

Example:
    >>> import chainlet.distributed as cmn
    >>> cmn.shard_bounds(7, 2)                    # the examples each of 2 processes gets
    [(0, 4), (3, 7)]
"""
from __future__ import annotations

import importlib
from typing import Any

from chainlet.distributed._except_hook import global_except_hook  # noqa: F401
from chainlet.distributed.communicators import CommunicatorBase  # noqa: F401
from chainlet.distributed.communicators import create_communicator  # noqa: F401
from chainlet.distributed.communicators import FlatCommunicator  # noqa: F401
from chainlet.distributed.communicators import MpiCommunicatorBase  # noqa: F401
from chainlet.distributed.communicators import HierarchicalCommunicator  # noqa: F401
from chainlet.distributed.communicators import NaiveCommunicator  # noqa: F401
from chainlet.distributed.communicators import NonCudaAwareCommunicator  # noqa: F401
from chainlet.distributed.communicators import SingleNodeCommunicator  # noqa: F401
from chainlet.distributed.communicators import TwoDimensionalCommunicator  # noqa: F401
from chainlet.distributed.datasets import create_empty_dataset, DataSizeError  # noqa: F401
from chainlet.distributed.datasets import scatter_dataset, scatter_index  # noqa: F401
from chainlet.distributed.datasets import shard_bounds  # noqa: F401
from chainlet.distributed.optimizers import create_multi_node_optimizer  # noqa: F401

# Names whose modules import the training framework or links: loaded on first use.
_LAZY = {
    'AllreducePersistent': 'chainlet.distributed.extensions',
    'create_multi_node_evaluator': 'chainlet.distributed.extensions',
    'mean_over_processes': 'chainlet.distributed.reductions',
    'MultiNodeBatchNormalization': 'chainlet.distributed.batch_normalization',
    'multi_node_batch_normalization': 'chainlet.distributed.batch_normalization',
    'PureNcclCommunicator': 'chainlet.distributed.pure_nccl',
    'prepare_fit': 'chainlet.distributed.keras_support',
    'KerasDataParallel': 'chainlet.distributed.keras_support',
    'keras_support': 'chainlet.distributed.keras_support',
    'create_multi_node_checkpointer': 'chainlet.distributed.checkpoint',
    'multi_node_snapshot': 'chainlet.distributed.snapshot',
    'GenericMultiNodeEvaluator': 'chainlet.distributed.evaluation',
    'ObservationAggregator': 'chainlet.distributed.evaluation',
    'MultiNodeEarlyStoppingTrigger': 'chainlet.distributed.evaluation',
    'create_multi_node_iterator': 'chainlet.distributed.iterators',
    'create_synchronized_iterator': 'chainlet.distributed.iterators',
    'MultiNodeChainList': 'chainlet.distributed.links',
    'create_mnbn_model': 'chainlet.distributed.links',
    'create_multi_node_n_step_rnn': 'chainlet.distributed.links',
    'send': 'chainlet.distributed.functions',
    'recv': 'chainlet.distributed.functions',
    'pseudo_connect': 'chainlet.distributed.functions',
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f'module chainlet.distributed has no attribute {name!r}')
    mod = importlib.import_module(module)
    return mod if module.endswith(name) else getattr(mod, name)


__all__ = [
    'AllreducePersistent', 'CommunicatorBase', 'DataSizeError', 'FlatCommunicator',
    'GenericMultiNodeEvaluator', 'HierarchicalCommunicator', 'KerasDataParallel',
    'MpiCommunicatorBase', 'MultiNodeBatchNormalization', 'MultiNodeChainList',
    'MultiNodeEarlyStoppingTrigger', 'NaiveCommunicator', 'NonCudaAwareCommunicator',
    'ObservationAggregator', 'PureNcclCommunicator', 'SingleNodeCommunicator',
    'TwoDimensionalCommunicator', 'create_communicator', 'create_empty_dataset',
    'create_mnbn_model', 'create_multi_node_checkpointer', 'create_multi_node_evaluator',
    'create_multi_node_iterator', 'create_multi_node_n_step_rnn', 'create_multi_node_optimizer',
    'create_synchronized_iterator', 'global_except_hook', 'mean_over_processes',
    'multi_node_batch_normalization', 'multi_node_snapshot', 'prepare_fit', 'pseudo_connect',
    'recv', 'scatter_dataset', 'scatter_index', 'send', 'shard_bounds',
]
