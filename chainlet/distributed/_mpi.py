"""Lazy access to mpi4py and the object transfers shared by every communicator.

mpi4py initializes MPI when ``mpi4py.MPI`` is imported, so nothing in ``chainlet`` imports it
until a communicator is created (importing ``chainlet.distributed`` alone never starts MPI).
"""
from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any

import numpy

_INSTALL_HINT = 'install the MPI extra: pip install "chainlet-dl[mpi]" (mpi4py and MPICH)'

#: Default largest message of one object transfer (256 MiB); larger pickles go in chunks.
DEFAULT_MAX_BUF_LEN = 256 * 1024 * 1024


def import_mpi() -> ModuleType:
    """Return ``mpi4py.MPI`` (initializing MPI), or raise ``ImportError`` saying how to install
    it."""
    try:
        from mpi4py import MPI
    except ImportError as e:
        raise ImportError(f'chainlet.distributed needs mpi4py and an MPI library; '
                          f'{_INSTALL_HINT}') from e
    return MPI


def check_max_buf_len(where: str, max_buf_len: Any) -> int:
    if isinstance(max_buf_len, bool) or not isinstance(max_buf_len, (int, numpy.integer)):
        raise TypeError(f'{where}: argument max_buf_len: expected an int, got '
                        f'{type(max_buf_len).__name__}')
    if not 0 < max_buf_len <= 2 ** 31 - 1:
        raise ValueError(f'{where}: argument max_buf_len: expected 1 .. 2**31 - 1 bytes, got '
                         f'{max_buf_len}')
    return int(max_buf_len)


def _chunks(n: int, max_buf_len: int) -> range:
    return range(0, n, max_buf_len)


def bcast_obj(mpi_comm: Any, obj: Any, root: int, max_buf_len: int) -> Any:
    """Broadcast a picklable object from ``root`` in chunks of at most ``max_buf_len`` bytes."""
    MPI = import_mpi()
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL) if mpi_comm.rank == root else None
    n = mpi_comm.bcast(None if data is None else len(data), root=root)
    buf = bytearray(data) if data is not None else bytearray(n)
    view = memoryview(buf)
    for start in _chunks(n, max_buf_len):
        mpi_comm.Bcast([view[start:start + max_buf_len], MPI.BYTE], root=root)
    return obj if mpi_comm.rank == root else pickle.loads(buf)


def send_obj(mpi_comm: Any, obj: Any, dest: int, tag: int, max_buf_len: int) -> None:
    """Send a picklable object to ``dest`` in chunks (the receiver calls :func:`recv_obj`)."""
    MPI = import_mpi()
    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    mpi_comm.send(len(data), dest=dest, tag=tag)
    view = memoryview(data)
    for start in _chunks(len(data), max_buf_len):
        mpi_comm.Send([view[start:start + max_buf_len], MPI.BYTE], dest=dest, tag=tag)


def recv_obj(mpi_comm: Any, source: int, tag: int, max_buf_len: int) -> Any:
    """Receive an object sent with :func:`send_obj`."""
    MPI = import_mpi()
    n = mpi_comm.recv(source=source, tag=tag)
    buf = bytearray(n)
    view = memoryview(buf)
    for start in _chunks(n, max_buf_len):
        mpi_comm.Recv([view[start:start + max_buf_len], MPI.BYTE], source=source, tag=tag)
    return pickle.loads(buf)


_float16_sum_op: Any = None


def _add_float16(inbuf: Any, outbuf: Any, datatype: Any) -> None:
    x = numpy.frombuffer(inbuf, numpy.float16)
    y = numpy.frombuffer(outbuf, numpy.float16)
    numpy.add(x, y, out=y)


def mpi_buffer_and_op(array: numpy.ndarray) -> tuple:
    """The ``[buffer, datatype]`` spec and the summing ``Op`` for a contiguous NumPy array.

    float16 travels as ``UINT16_T`` bits added by a user-defined operation in NumPy: it works
    with every MPI library, and measured faster than MPICH's own 16-bit float reduction
    (``benchmarks/bench_allreduce.py``).
    """
    MPI = import_mpi()
    if array.dtype != numpy.float16:
        return array, MPI.SUM
    global _float16_sum_op
    if _float16_sum_op is None:
        _float16_sum_op = MPI.Op.Create(_add_float16, commute=True)
    return [array.view(numpy.uint16), MPI.UINT16_T], _float16_sum_op
