"""``chainermn.communicators``: :mod:`chainlet.distributed.communicators` with ChainerMN's
``create_communicator`` signature."""
from typing import Any

from chainlet.distributed import communicators as _communicators
from chainlet.distributed.communicators import CommunicatorBase  # noqa: F401


def create_communicator(communicator_name: str = 'pure_nccl', mpi_comm: Any = None,
                        **kwargs: Any) -> Any:
    """Create a communicator (collective); ChainerMN's signature and default name.

    Args:
        communicator_name: ``'pure_nccl'`` (ChainerMN's default, for GPUs), ``'flat'``,
            ``'naive'``, ``'non_cuda_aware'`` (and ChainerMN 6's ``'hierarchical'``,
            ``'two_dimensional'``, ``'single_node'``).
        mpi_comm: An ``mpi4py.MPI.Comm`` (default ``COMM_WORLD``).
        allreduce_grad_dtype: dtype the gradients travel in (keyword).
        batched_copy: Accepted for compatibility (keyword); packing is always batched.

    Returns:
        The communicator (see :func:`chainlet.distributed.create_communicator`).
    """
    allreduce_grad_dtype = kwargs.pop('allreduce_grad_dtype', None)
    batched_copy = kwargs.pop('batched_copy', True)
    if kwargs:
        raise TypeError(f'create_communicator: unexpected keyword argument(s) '
                        f'{", ".join(sorted(kwargs))}')
    comm = _communicators.create_communicator(communicator_name, mpi_comm,
                                              allreduce_grad_dtype)
    comm.set_config('batched_copy', batched_copy)
    return comm
