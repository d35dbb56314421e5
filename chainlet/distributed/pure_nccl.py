"""``PureNcclCommunicator``: gradients of CuPy parameters reduced on the GPUs by NCCL.

Written on CuPy's documented NCCL bindings (``cupy.cuda.nccl``): rank 0 draws NCCL's unique id,
MPI broadcasts it, and every process creates an ``NcclCommunicator`` for its current GPU. Select
the GPU before the first collective, one process per GPU::

    comm = chainlet.distributed.create_communicator('pure_nccl')
    device = chainlet.backend.get_device(f'@cupy:{comm.intra_rank}')
    device.use()
    model.to_device(device)

Objects and NumPy arrays still travel through MPI.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet.distributed import communicators as _comms


def _nccl_dtype(nccl: Any, dtype: numpy.dtype) -> int:
    table = {numpy.dtype(numpy.float16): nccl.NCCL_FLOAT16,
             numpy.dtype(numpy.float32): nccl.NCCL_FLOAT32,
             numpy.dtype(numpy.float64): nccl.NCCL_FLOAT64}
    if dtype not in table:
        raise TypeError(f'PureNcclCommunicator: dtype {dtype} cannot travel through NCCL; '
                        f'expected float16, float32 or float64')
    return table[dtype]


class PureNcclCommunicator(_comms.MpiCommunicatorBase):
    """MPI for processes and objects, NCCL for CuPy arrays (see the module docstring).

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm`` (``MPI.COMM_WORLD`` when ``None``).
        allreduce_grad_dtype: dtype the gradients travel in (``None``: their own).
    """

    name = 'pure_nccl'

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None) -> None:
        super().__init__(mpi_comm, allreduce_grad_dtype)
        self._nccl_comm: Any = None
        self._stream: Any = None

    def _init_nccl(self) -> Any:
        if self._nccl_comm is None:
            backend.import_cupy()
            from cupy.cuda import nccl
            uid = nccl.get_unique_id() if self.rank == 0 else None
            uid = self.mpi_comm.bcast(uid, root=0)
            self._nccl_comm = nccl.NcclCommunicator(self.size, uid, self.rank)
        return self._nccl_comm

    def finalize(self) -> None:
        """Destroy the NCCL communicator (a later collective creates a new one)."""
        super().finalize()
        if self._nccl_comm is not None:
            self._nccl_comm.destroy()
            self._nccl_comm = None

    def split(self, color: int, key: int) -> 'PureNcclCommunicator':
        return PureNcclCommunicator(self.mpi_comm.Split(color, key), self.allreduce_grad_dtype)

    def _allreduce_gpu(self, buf: Any, stream: Any) -> None:
        from cupy.cuda import nccl
        comm = self._init_nccl()
        comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size, _nccl_dtype(nccl, buf.dtype),
                       nccl.NCCL_SUM, stream.ptr)

    def allreduce(self, x: Any) -> Any:
        if not backend.is_cupy_array(x):
            return super().allreduce(x)
        import cupy
        buf = cupy.ascontiguousarray(x).copy()
        self._allreduce_gpu(buf, cupy.cuda.get_current_stream())
        return buf

    def bcast(self, x: Any, root: int = 0) -> Any:
        root = _comms._check_root('bcast', root, self.size)
        if self.rank == root and not backend.is_array(x):
            raise TypeError(f'bcast: argument x: expected a numpy or cupy ndarray, got '
                            f'{type(x).__name__}')
        meta = (x.shape, x.dtype.str, backend.is_cupy_array(x)) if self.rank == root else None
        shape, dtype, on_gpu = self.mpi_comm.bcast(meta, root=root)
        if not on_gpu:  # NumPy arrays travel through MPI
            host = numpy.ascontiguousarray(x) if self.rank == root else numpy.empty(shape, dtype)
            self._bcast_host(host, root)
            return x if self.rank == root else host
        import cupy
        buf = cupy.ascontiguousarray(x) if self.rank == root else cupy.empty(shape, dtype)
        self._bcast_gpu(buf, root)
        return buf

    def _bcast_gpu(self, buf: Any, root: int) -> None:
        import cupy
        from cupy.cuda import nccl
        comm = self._init_nccl()
        # NCCL counts elements; sending the bytes keeps every dtype (int, bool) broadcastable.
        raw = buf.reshape(-1).view(numpy.uint8)
        comm.bcast(raw.data.ptr, raw.size, nccl.NCCL_UINT8, root,
                   cupy.cuda.get_current_stream().ptr)

    def bcast_data(self, model: Any) -> None:
        params = _comms._sorted_params(model, 'bcast_data')
        for group in _comms._by_dtype(params):
            if not backend.is_cupy_array(group[0].array):
                super()._bcast_group(group)
                continue
            import cupy
            flat = cupy.concatenate([p.array.reshape(-1) for p in group])
            self._bcast_gpu(flat, 0)
            offset = 0
            for p in group:
                p.array[...] = flat[offset:offset + p.size].reshape(p.shape)
                offset += p.size

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        handle = self._start_mean_grad(model, zero_fill)
        self._finish_mean_grad(handle)

    def _start_mean_grad(self, model: Any, zero_fill: bool,
                         stream: Optional[Any] = None) -> Optional[tuple]:
        params = self._check_model(model, zero_fill, 'multi_node_mean_grad')
        if params and not all(backend.is_cupy_array(p.array) for p in params):
            raise TypeError('PureNcclCommunicator.multi_node_mean_grad: every parameter must be '
                            'a CuPy array (call model.to_device("@cupy:N") first); use the '
                            "'flat' communicator for NumPy models")
        if not params:
            return None
        cupy = backend.import_cupy()
        packing = _comms._Packing(params, zero_fill)
        buf = cupy.empty(packing.length, self._comm_dtype(params))
        packing.pack(buf)
        if stream is None:
            stream = cupy.cuda.get_current_stream()
        else:
            # The side stream must see the packed buffer before it reduces it.
            stream.wait_event(cupy.cuda.get_current_stream().record())
        self._allreduce_gpu(buf, stream)
        return packing, buf, stream

    def _finish_mean_grad(self, handle: Optional[tuple]) -> None:
        if handle is None:  # no gradient anywhere: nothing was reduced
            return
        packing, buf, stream = handle
        stream.synchronize()
        packing.unpack(buf, 1.0 / self.size)
