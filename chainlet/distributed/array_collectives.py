"""Array collectives of every MPI communicator: ``send``/``recv``, ``gather``, ``allgather``,
``scatter`` and ``alltoall`` (ChainerMN's communicator methods).

Arrays of any shape travel; their shapes and dtypes go first as a small pickled message, then
the data through mpi4py's buffer interface (no pickling of the payload). CuPy arrays are staged
through host memory and come back on the current GPU, so MPI needs no CUDA support. float16
travels as its bits.

Example (under ``mpiexec -n 2``)::

    comm = chainlet.distributed.create_communicator('naive')
    if comm.rank == 0:
        comm.send((numpy.ones(3), numpy.zeros((2, 2))), dest=1, tag=0)
    else:
        a, b = comm.recv(source=0, tag=0)
    parts = comm.allgather(numpy.full(2, comm.rank))   # (array([0, 0]), array([1, 1]))
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import backend


class _Meta:
    """Shapes and dtype of a message: one array, or a tuple/list of arrays of one dtype."""

    def __init__(self, where: str, data: Any) -> None:
        self.is_tuple = isinstance(data, (tuple, list))
        arrays = list(data) if self.is_tuple else [data]
        for a in arrays:
            if not backend.is_array(a):
                raise TypeError(f'{where}: expected a numpy or cupy ndarray or a tuple of them, '
                                f'got {type(a).__name__}')
        dtypes = {numpy.dtype(a.dtype) for a in arrays}
        if len(dtypes) > 1:
            raise TypeError(f'{where}: every array of a message must have the same dtype, got '
                            f'{", ".join(sorted(map(str, dtypes)))}')
        self.dtype = dtypes.pop() if dtypes else numpy.dtype(numpy.float32)
        self.shapes = [tuple(a.shape) for a in arrays]
        self.on_gpu = any(backend.is_cupy_array(a) for a in arrays)


def _host(x: Any) -> numpy.ndarray:
    return numpy.ascontiguousarray(backend.to_cpu(x))


def _wire(host: numpy.ndarray) -> Any:
    """The buffer spec of a contiguous host array (float16 and bool as raw bytes)."""
    from chainlet.distributed import _mpi
    MPI = _mpi.import_mpi()
    return [host.reshape(-1).view(numpy.uint8), MPI.BYTE]


def _like(host: numpy.ndarray, on_gpu: bool) -> Any:
    return backend.to_gpu(host) if on_gpu else host


def _offsets(counts: Sequence[int]) -> list:
    return numpy.concatenate(([0], numpy.cumsum(counts, dtype=numpy.int64)))[:-1].tolist()


def _split(flat: numpy.ndarray, shapes: Sequence[tuple]) -> list:
    sizes = [int(numpy.prod(s, dtype=numpy.int64)) for s in shapes]
    return [flat[o:o + n].reshape(s) for o, n, s in zip(_offsets(sizes), sizes, shapes)]


class ArrayCollectives:
    """Mixin of the array collectives; the class provides ``mpi_comm``, ``rank`` and ``size``.

    Every method is collective over the communicator except ``send``/``recv``, which pair one
    sender with one receiver.
    """

    mpi_comm: Any
    rank: int
    size: int

    def _peer(self, where: str, name: str, rank: Any) -> int:
        if isinstance(rank, bool) or not isinstance(rank, (int, numpy.integer)):
            raise TypeError(f'{where}: argument {name}: expected an int, got '
                            f'{type(rank).__name__}')
        if not 0 <= rank < self.size:
            raise ValueError(f'{where}: argument {name}: expected 0 <= {name} < size = '
                             f'{self.size}, got {rank}')
        return int(rank)

    def send(self, data: Any, dest: int, tag: int = 0) -> None:
        """Send an array, or a tuple/list of arrays of one dtype, to ``dest`` (which calls
        :meth:`recv` with the same ``tag``)."""
        dest = self._peer('send', 'dest', dest)
        meta = _Meta('send', data)
        self.mpi_comm.send(meta, dest=dest, tag=tag)
        for a in (data if meta.is_tuple else [data]):
            self.mpi_comm.Send(_wire(_host(a)), dest=dest, tag=tag)

    def recv(self, source: int, tag: int = 0) -> Any:
        """Receive what ``source`` sent with :meth:`send`: an array, or a tuple of arrays when a
        tuple or list was sent (on the current GPU when the sender's were CuPy arrays)."""
        source = self._peer('recv', 'source', source)
        meta = self.mpi_comm.recv(source=source, tag=tag)
        out = []
        for shape in meta.shapes:
            host = numpy.empty(shape, meta.dtype)
            self.mpi_comm.Recv(_wire(host), source=source, tag=tag)
            out.append(_like(host, meta.on_gpu))
        return tuple(out) if meta.is_tuple else out[0]

    def _vector(self, where: str, x: Any) -> tuple:
        meta = _Meta(where, x)
        if meta.is_tuple:
            raise TypeError(f'{where}: argument x: expected one array, got a '
                            f'{type(x).__name__}')
        return meta, _host(x)

    @staticmethod
    def _same_dtype(where: str, metas: Sequence[_Meta]) -> numpy.dtype:
        dtypes = {m.dtype for m in metas}
        if len(dtypes) > 1:
            raise TypeError(f'{where}: every process must pass the same dtype, got '
                            f'{", ".join(sorted(map(str, dtypes)))}')
        return metas[0].dtype

    def gather(self, x: Any, root: int = 0) -> Optional[tuple]:
        """Every process's array (shapes may differ), as a tuple on ``root``; ``None``
        elsewhere."""
        root = self._peer('gather', 'root', root)
        meta, host = self._vector('gather', x)
        metas = self.mpi_comm.gather(meta, root=root)
        if self.rank != root:
            self.mpi_comm.Gatherv(_wire(host), None, root=root)
            return None
        dtype = self._same_dtype('gather', metas)
        shapes = [m.shapes[0] for m in metas]
        flat = numpy.empty(sum(int(numpy.prod(s, dtype=numpy.int64)) for s in shapes), dtype)
        counts = [int(numpy.prod(s, dtype=numpy.int64)) * dtype.itemsize for s in shapes]
        recv = [flat.view(numpy.uint8), (counts, _offsets(counts)), _wire(flat)[1]]
        self.mpi_comm.Gatherv(_wire(host), recv, root=root)
        return tuple(_like(a, meta.on_gpu) for a in _split(flat, shapes))

    def allgather(self, x: Any) -> tuple:
        """Every process's array (shapes may differ), as a tuple on every process."""
        meta, host = self._vector('allgather', x)
        metas = self.mpi_comm.allgather(meta)
        dtype = self._same_dtype('allgather', metas)
        shapes = [m.shapes[0] for m in metas]
        counts = [int(numpy.prod(s, dtype=numpy.int64)) * dtype.itemsize for s in shapes]
        flat = numpy.empty(sum(counts) // dtype.itemsize, dtype)
        recv = [flat.view(numpy.uint8), (counts, _offsets(counts)), _wire(flat)[1]]
        self.mpi_comm.Allgatherv(_wire(host), recv)
        return tuple(_like(a, meta.on_gpu) for a in _split(flat, shapes))

    def scatter(self, xs: Any, root: int = 0) -> Any:
        """Give process ``i`` the ``i``-th of ``root``'s arrays: ``xs`` is a tuple of ``size``
        arrays or one array whose first axis has length ``size`` (ignored elsewhere)."""
        root = self._peer('scatter', 'root', root)
        parts = None
        if self.rank == root:
            if isinstance(xs, (tuple, list)) or backend.is_array(xs):
                parts = list(xs)
            else:
                raise TypeError(f'scatter: argument xs: expected a tuple of arrays or an '
                                f'array, got {type(xs).__name__}')
            if len(parts) != self.size:
                raise ValueError(f'scatter: argument xs: expected {self.size} arrays (the '
                                 f'communicator size), got {len(parts)}')
            metas = [_Meta('scatter', p) for p in parts]
            self._same_dtype('scatter', metas)
        else:
            metas = None
        mine = self.mpi_comm.scatter(metas, root=root)
        host = numpy.empty(mine.shapes[0], mine.dtype)
        if self.rank == root:
            send_parts = [_host(p).reshape(-1) for p in parts or ()]
            flat = numpy.concatenate(send_parts) if send_parts else numpy.empty(0, mine.dtype)
            counts = [p.size * mine.dtype.itemsize for p in send_parts]
            send = [flat.view(numpy.uint8), (counts, _offsets(counts)), _wire(flat)[1]]
        else:
            send = None
        self.mpi_comm.Scatterv(send, _wire(host), root=root)
        return _like(host, mine.on_gpu)

    def alltoall(self, xs: Sequence[Any]) -> tuple:
        """Send ``xs[i]`` to process ``i``; returns the tuple of the arrays each process sent
        here (``xs`` holds ``size`` arrays of one dtype, shapes may differ)."""
        if not isinstance(xs, (tuple, list)) or len(xs) != self.size:
            raise ValueError(f'alltoall: argument xs: expected a tuple of {self.size} arrays '
                             f'(the communicator size), got '
                             f'{len(xs) if isinstance(xs, (tuple, list)) else type(xs).__name__}')
        metas = [_Meta('alltoall', x) for x in xs]
        dtype = self._same_dtype('alltoall', metas)
        recv_metas = self.mpi_comm.alltoall(metas)
        rdtype = self._same_dtype('alltoall', recv_metas)
        hosts = [_host(x).reshape(-1) for x in xs]
        sflat = numpy.concatenate(hosts) if hosts else numpy.empty(0, dtype)
        scounts = [h.size * dtype.itemsize for h in hosts]
        shapes = [m.shapes[0] for m in recv_metas]
        rcounts = [int(numpy.prod(s, dtype=numpy.int64)) * rdtype.itemsize for s in shapes]
        rflat = numpy.empty(sum(rcounts) // rdtype.itemsize, rdtype)
        byte = _wire(sflat)[1]
        self.mpi_comm.Alltoallv([sflat.view(numpy.uint8), (scounts, _offsets(scounts)), byte],
                                [rflat.view(numpy.uint8), (rcounts, _offsets(rcounts)), byte])
        on_gpu = any(m.on_gpu for m in metas)
        return tuple(_like(a, on_gpu) for a in _split(rflat, shapes))
