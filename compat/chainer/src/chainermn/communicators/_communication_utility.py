"""ChainerMN's communication helpers, on :mod:`chainlet.distributed`."""
from typing import Any

import mpi4py.MPI  # noqa: F401  (as ChainerMN's module, importing it initializes MPI)
import numpy

from chainlet.distributed import _mpi
from chainlet.distributed.communicators import node_ranks

#: The largest message MPI takes in one call (its counts are C ints).
INT_MAX = 2147483647


def init_ranks(mpi_comm: Any) -> list:
    """``[rank, intra_rank, intra_size, inter_rank, inter_size]`` of this process
    (collective)."""
    return [mpi_comm.rank, *node_ranks(mpi_comm)]


def chunked_bcast_obj(obj: Any, mpi_comm: Any, max_buf_len: int = 256 * 1024 * 1024,
                      root: int = 0) -> Any:
    """Broadcast a picklable object from ``root`` in pieces of at most ``max_buf_len`` bytes
    (collective). ``max_buf_len`` must be in ``(0, INT_MAX)``: ChainerMN asserts it."""
    assert 0 < max_buf_len < INT_MAX, f'max_buf_len must be in (0, {INT_MAX}), got {max_buf_len}'
    return _mpi.bcast_obj(mpi_comm, obj, root, max_buf_len)


def _get_nccl_type_id(dtype: Any) -> int:
    """NCCL's id of a float dtype (needs CuPy's NCCL)."""
    from cupy.cuda import nccl

    from chainlet.distributed.pure_nccl import _nccl_dtype
    return _nccl_dtype(nccl, numpy.dtype(dtype))
