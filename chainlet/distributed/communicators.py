"""Communicators: who the processes are, and the collectives that data-parallel training needs.

Every process of an ``mpiexec -n N python train.py`` job creates the same communicator::

    comm = chainlet.distributed.create_communicator('flat')
    print(comm.rank, comm.size, comm.intra_rank)   # rank in the job, job size, rank on the node

Three implementations share one interface:

- ``'naive'``: one MPI ``Allreduce`` per parameter (simple; slow for many small parameters);
- ``'flat'``: every gradient packed into one contiguous buffer, one ``Allreduce`` per step, then
  unpacked (the default; CuPy gradients are staged through host memory);
- ``'pure_nccl'``: CuPy gradients reduced on the GPUs by NCCL (``cupy.cuda.nccl``), with MPI
  only used to hand out NCCL's unique id.

``allreduce_grad_dtype`` (e.g. ``numpy.float16``) sets the type the gradients travel in: half the
bytes for a little precision; they come back in their own dtype.
"""
from __future__ import annotations

import contextlib
from typing import Any, Iterable, Iterator, Optional

import numpy

from chainlet import backend
from chainlet.distributed import _except_hook, _mpi
from chainlet.distributed.array_collectives import ArrayCollectives

_COMM_DTYPES = (numpy.dtype(numpy.float16), numpy.dtype(numpy.float32),
                numpy.dtype(numpy.float64))


def _check_grad_dtype(where: str, dtype: Any) -> Optional[numpy.dtype]:
    if dtype is None:
        return None
    try:
        dtype = numpy.dtype(dtype)
    except TypeError as e:
        raise TypeError(f'{where}: argument allreduce_grad_dtype: expected None or a float '
                        f'dtype, got {dtype!r}') from e
    if dtype not in _COMM_DTYPES:
        raise ValueError(f'{where}: argument allreduce_grad_dtype: expected None, float16, '
                         f'float32 or float64, got {dtype}')
    return dtype


def _check_root(where: str, root: Any, size: int) -> int:
    if isinstance(root, bool) or not isinstance(root, (int, numpy.integer)):
        raise TypeError(f'{where}: argument root: expected an int, got {type(root).__name__}')
    if not 0 <= root < size:
        raise ValueError(f'{where}: argument root: expected 0 <= root < size = {size}, '
                         f'got {root}')
    return int(root)


def _sorted_params(model: Any, where: str) -> list:
    from chainlet.link import Link
    if not isinstance(model, Link):
        raise TypeError(f'{where}: argument model: expected a Link, got '
                        f'{type(model).__name__}')
    # Sorted by path so that every process lays its buffer out in the same order.
    return [p for _, p in sorted(model.namedparams(), key=lambda item: item[0])
            if p.array is not None]


def _grad_params(model: Any, zero_fill: bool, where: str) -> list:
    params = _sorted_params(model, where)
    if zero_fill:
        return params
    return [p for p in params if p.grad is not None]


class _Packing:
    """Offsets of each parameter's gradient in a flat buffer; the last ``len(params)`` entries
    of the buffer say whether a process had that gradient (they add up to the number of
    processes that had one, so a gradient that no process has stays ``None``)."""

    def __init__(self, params: list, zero_fill: bool) -> None:
        self.params = params
        self.zero_fill = zero_fill
        sizes = [p.size for p in params]
        self.offsets = numpy.concatenate(([0], numpy.cumsum(sizes, dtype=numpy.int64))).tolist()
        self.n_grad = self.offsets[-1]
        self.length = self.n_grad + (len(params) if zero_fill else 0)

    def pack(self, buf: Any) -> None:
        """Copy the gradients (zeros where missing) and the presence flags into ``buf``."""
        xp = backend.get_array_module(buf)
        grads = [p.grad for p in self.params]
        if grads:
            # One concatenate (a single C loop) rather than a copy per parameter.
            xp.concatenate([xp.zeros(p.size, buf.dtype) if g is None else g.reshape(-1)
                            for p, g in zip(self.params, grads)],
                           out=buf[:self.n_grad], casting='unsafe')
        if self.zero_fill:
            buf[self.n_grad:] = xp.asarray([g is not None for g in grads], buf.dtype)

    def unpack(self, buf: Any, scale: float) -> None:
        """Set each gradient to ``scale`` times its reduced segment of ``buf`` (scaling here,
        in the gradient's dtype, saves a pass over the buffer and float16 arithmetic)."""
        xp = backend.get_array_module(buf)
        flags = backend.to_cpu(buf[self.n_grad:]) if self.zero_fill else None
        for i, p in enumerate(self.params):
            seg = buf[self.offsets[i]:self.offsets[i + 1]].reshape(p.shape)
            if flags is not None and flags[i] == 0:
                p.grad = None  # no process had this gradient
                continue
            grad = p.grad
            if grad is None or not getattr(grad.flags, 'writeable', True):
                grad = p.grad = xp.empty(p.shape, p.dtype)
            xp.multiply(seg, scale, out=grad, casting='unsafe')


def node_ranks(mpi_comm: Any) -> tuple:
    """``(intra_rank, intra_size, inter_rank, inter_size)`` of this process in ``mpi_comm``
    (collective): its rank among the processes of its node, their number, the index of its
    node and the number of nodes. Nodes are numbered in the order of their lowest rank.
    """
    MPI = _mpi.import_mpi()
    intra = mpi_comm.Split_type(MPI.COMM_TYPE_SHARED, key=mpi_comm.rank)
    try:
        leaders = mpi_comm.allgather(intra.rank == 0)
        leader = intra.bcast(mpi_comm.rank, root=0)
        return intra.rank, intra.size, sum(leaders[:leader]), sum(leaders)
    finally:
        intra.Free()


class CommunicatorBase:
    """The interface of every communicator (see the module docstring).

    Attributes:
        rank (int): This process's rank in the communicator, ``0 .. size - 1``.
        size (int): Number of processes.
        intra_rank (int): Rank among the processes on this node (selects the GPU).
        intra_size (int): Number of processes on this node.
        inter_rank (int): Index of this node.
        inter_size (int): Number of nodes.
    """

    rank: int
    size: int
    intra_rank: int
    intra_size: int
    inter_rank: int
    inter_size: int

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Replace every gradient of ``model`` by its mean over all processes (collective).

        Args:
            model: The link whose parameters' gradients are averaged.
            zero_fill: Take part with zeros for initialized parameters that have no gradient
                here, so that every process reduces the same buffer layout (a process whose
                forward pass skipped a branch then does not hang the others). Without it, every
                process must have gradients for exactly the same parameters.
        """
        raise NotImplementedError(f'{type(self).__name__} does not implement '
                                  f'multi_node_mean_grad')

    def allreduce_grad(self, model: Any, zero_fill: bool = False) -> None:
        """Alias of :meth:`multi_node_mean_grad` (its name in ChainerMN 5 and 6)."""
        self.multi_node_mean_grad(model, zero_fill)

    def bcast_data(self, model: Any) -> None:
        """Overwrite every initialized parameter of ``model`` with rank 0's (collective)."""
        raise NotImplementedError(f'{type(self).__name__} does not implement bcast_data')

    def broadcast_data(self, model: Any) -> None:
        """Alias of :meth:`bcast_data` (its name in ChainerMN 5 and 6)."""
        self.bcast_data(model)

    # -- configuration (ChainerMN's set_config/get_config) --

    def set_config(self, name: str, value: Any = True, **kwargs: Any) -> None:
        """Set the communicator option ``name`` (``'allreduce_grad_dtype'``,
        ``'batched_copy'``); an unknown name raises ``ValueError``."""
        if name not in self._config_names:
            raise ValueError(f'{type(self).__name__}.set_config: argument name: expected one '
                             f'of {", ".join(map(repr, self._config_names))}, got {name!r}')
        if name == 'allreduce_grad_dtype':
            value = _check_grad_dtype(f'{type(self).__name__}.set_config', value)
        setattr(self, name, value)

    def get_config(self, name: Optional[str] = None) -> Any:
        """The value of option ``name``, or a dict of every option when ``name`` is None."""
        if name is None:
            return {n: getattr(self, n, None) for n in self._config_names}
        if name not in self._config_names:
            raise ValueError(f'{type(self).__name__}.get_config: argument name: expected one '
                             f'of {", ".join(map(repr, self._config_names))}, got {name!r}')
        return getattr(self, name, None)

    _config_names: tuple = ('allreduce_grad_dtype', 'batched_copy')
    #: Accepted for ChainerMN's ``create_communicator(batched_copy=...)``; packing is always
    #: batched here.
    batched_copy = True

    @contextlib.contextmanager
    def config_scope(self) -> Iterator[None]:
        """A block in which options may be set (ChainerMN's API; options can always be set)."""
        yield

    @property
    def within_config_scope(self) -> bool:
        """Always True: options may be changed at any time."""
        return True


class MpiCommunicatorBase(ArrayCollectives, CommunicatorBase):
    """A communicator over an mpi4py communicator; the ``'naive'`` and ``'flat'`` ones derive
    from it. Create it with :func:`create_communicator`.

    Args:
        mpi_comm: An ``mpi4py.MPI.Comm`` (``MPI.COMM_WORLD`` when ``None``).
        allreduce_grad_dtype: dtype the gradients travel in (``None``: their own).
    """

    name = 'mpi'

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None) -> None:
        MPI = _mpi.import_mpi()
        if mpi_comm is None:
            mpi_comm = MPI.COMM_WORLD
        if not isinstance(mpi_comm, MPI.Comm):
            raise TypeError(f'{type(self).__name__}: argument mpi_comm: expected an '
                            f'mpi4py.MPI.Comm, got {type(mpi_comm).__name__}')
        self._mpi_comm = mpi_comm
        self.allreduce_grad_dtype = _check_grad_dtype(type(self).__name__, allreduce_grad_dtype)
        self._init_ranks(MPI)
        self._host_buffer: Optional[numpy.ndarray] = None
        # Safe by default: an exception on one process must not leave the others waiting
        # forever in a collective (see chainlet.distributed._except_hook).
        _except_hook.install_default_hook(MPI.COMM_WORLD.size)

    def _init_ranks(self, MPI: Any) -> None:
        self.intra_rank, self.intra_size, self.inter_rank, self.inter_size = \
            node_ranks(self._mpi_comm)

    @property
    def mpi_comm(self) -> Any:
        """The underlying ``mpi4py.MPI.Comm``."""
        return self._mpi_comm

    @property
    def rank(self) -> int:  # type: ignore[override]
        return self._mpi_comm.rank

    @property
    def size(self) -> int:  # type: ignore[override]
        return self._mpi_comm.size

    def __repr__(self) -> str:
        return (f'{type(self).__name__}(rank={self.rank}, size={self.size}, '
                f'intra_rank={self.intra_rank}, inter_rank={self.inter_rank}, '
                f'allreduce_grad_dtype={self.allreduce_grad_dtype})')

    # -- communicators --

    def split(self, color: int, key: int) -> 'MpiCommunicatorBase':
        """A communicator of the same kind over the processes that pass the same ``color``,
        ranked by ``key`` (collective; see ``MPI_Comm_split``)."""
        return type(self)(self._mpi_comm.Split(color, key),
                          allreduce_grad_dtype=self.allreduce_grad_dtype)

    def finalize(self) -> None:
        """Release resources held by the communicator (MPI itself is finalized at exit)."""
        self._host_buffer = None

    # -- objects --

    def bcast_obj(self, obj: Any, max_buf_len: int = _mpi.DEFAULT_MAX_BUF_LEN,
                  root: int = 0) -> Any:
        """Return ``root``'s ``obj`` on every process (pickled; large objects in chunks)."""
        root = _check_root('bcast_obj', root, self.size)
        max_buf_len = _mpi.check_max_buf_len('bcast_obj', max_buf_len)
        return _mpi.bcast_obj(self._mpi_comm, obj, root, max_buf_len)

    def send_obj(self, obj: Any, dest: int, tag: int = 0,
                 max_buf_len: int = _mpi.DEFAULT_MAX_BUF_LEN) -> None:
        """Send a picklable object to ``dest`` (which calls :meth:`recv_obj`)."""
        dest = _check_root('send_obj', dest, self.size)
        max_buf_len = _mpi.check_max_buf_len('send_obj', max_buf_len)
        _mpi.send_obj(self._mpi_comm, obj, dest, tag, max_buf_len)

    def recv_obj(self, source: int, tag: int = 0,
                 max_buf_len: int = _mpi.DEFAULT_MAX_BUF_LEN) -> Any:
        """Receive an object sent with :meth:`send_obj`."""
        source = _check_root('recv_obj', source, self.size)
        max_buf_len = _mpi.check_max_buf_len('recv_obj', max_buf_len)
        return _mpi.recv_obj(self._mpi_comm, source, tag, max_buf_len)

    def gather_obj(self, obj: Any, root: int = 0) -> Optional[list]:
        """The list of every process's ``obj`` on ``root`` (``None`` elsewhere)."""
        root = _check_root('gather_obj', root, self.size)
        return self._mpi_comm.gather(obj, root=root)

    def allgather_obj(self, obj: Any) -> list:
        """The list of every process's ``obj``, on every process."""
        return self._mpi_comm.allgather(obj)

    def allreduce_obj(self, obj: Any) -> Any:
        """The sum (``+``) of every process's ``obj``, on every process."""
        return self._mpi_comm.allreduce(obj)

    # -- arrays --

    def _host_array(self, x: Any, where: str) -> numpy.ndarray:
        if not backend.is_array(x):
            raise TypeError(f'{where}: argument x: expected a numpy or cupy ndarray, got '
                            f'{type(x).__name__}')
        return numpy.ascontiguousarray(backend.to_cpu(x))

    def allreduce(self, x: Any) -> Any:
        """The element-wise sum of ``x`` over all processes, as a new array of the same kind.

        Every process passes an array of the same shape and dtype.
        """
        host = self._host_array(x, 'allreduce').copy()
        self._allreduce_host(host)
        return host if isinstance(x, numpy.ndarray) else backend.to_gpu(host, x.device.id)

    def _allreduce_host(self, host: numpy.ndarray) -> None:
        MPI = _mpi.import_mpi()
        spec, op = _mpi.mpi_buffer_and_op(host.reshape(-1))
        self._mpi_comm.Allreduce(MPI.IN_PLACE, spec, op=op)

    def bcast(self, x: Any, root: int = 0) -> Any:
        """``root``'s array on every process (other processes may pass ``None``)."""
        root = _check_root('bcast', root, self.size)
        if self.rank == root:
            host = self._host_array(x, 'bcast')
            meta = (host.shape, host.dtype.str, isinstance(x, numpy.ndarray))
        else:
            host, meta = None, None
        shape, dtype, on_host = self._mpi_comm.bcast(meta, root=root)
        if host is None:
            host = numpy.empty(shape, dtype)
        self._bcast_host(host, root)
        if self.rank == root:
            return x
        return host if on_host else backend.to_gpu(host)

    def _bcast_host(self, host: numpy.ndarray, root: int) -> None:
        MPI = _mpi.import_mpi()
        self._mpi_comm.Bcast([host.reshape(-1).view(numpy.uint8), MPI.BYTE], root=root)

    # -- models --

    def bcast_data(self, model: Any) -> None:
        params = _sorted_params(model, 'bcast_data')
        for group in _by_dtype(params):
            self._bcast_group(group)

    def _bcast_group(self, params: list) -> None:
        for p in params:
            host = numpy.ascontiguousarray(backend.to_cpu(p.array))
            self._bcast_host(host, 0)
            if self.rank != 0:
                backend.copyto(p.array, host)

    def _comm_dtype(self, params: list) -> numpy.dtype:
        if self.allreduce_grad_dtype is not None:
            return self.allreduce_grad_dtype
        dtypes = [p.dtype for p in params]
        return numpy.dtype(numpy.result_type(*dtypes)) if dtypes else numpy.dtype(numpy.float32)

    def _check_model(self, model: Any, zero_fill: bool, where: str) -> list:
        params = _grad_params(model, zero_fill, where)
        for p in params:
            if p.dtype.kind != 'f':
                raise TypeError(f'{where}: parameter {p.name!r} has dtype {p.dtype}; only float '
                                f'parameters can be averaged')
        return params


def _by_dtype(params: Iterable) -> list:
    groups: dict = {}
    for p in params:
        groups.setdefault((p.dtype, backend.is_cupy_array(p.array)), []).append(p)
    return list(groups.values())


class NaiveCommunicator(MpiCommunicatorBase):
    """One MPI ``Allreduce`` per parameter (see the module docstring)."""

    name = 'naive'

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        params = self._check_model(model, zero_fill, 'multi_node_mean_grad')
        dtype = self._comm_dtype(params)
        scale = 1.0 / self.size
        for p in params:
            host_param = _HostView(p)
            packing = _Packing([host_param], zero_fill)
            buf = numpy.empty(packing.length, dtype)
            packing.pack(buf)
            self._allreduce_host(buf)
            packing.unpack(buf, scale)
            host_param.commit()


class _HostView:
    """A host-side stand-in for a parameter whose arrays may be on a GPU (MPI without CUDA
    support only reads and writes host memory)."""

    def __init__(self, param: Any) -> None:
        self.param = param
        self.shape = param.shape
        self.size = param.size
        self.dtype = param.dtype
        self.grad = None if param.grad is None else backend.to_cpu(param.grad)

    def commit(self) -> None:
        if self.grad is None:
            self.param.grad = None
            return
        if self.grad is self.param.grad:
            return
        if self.param.grad is None:
            self.param.grad = backend.get_array_module(self.param.array).zeros(
                self.shape, self.dtype)
        backend.copyto(self.param.grad, self.grad)


class FlatCommunicator(MpiCommunicatorBase):
    """All gradients in one buffer, one ``Allreduce`` per step (see the module docstring).

    Also supports ``double_buffering`` in :func:`create_multi_node_optimizer` through MPI's
    non-blocking ``Iallreduce``.

    Attributes:
        segment_bytes (int or None): When set, the packed buffer is reduced in consecutive
            pieces of at most this many bytes (one ``Allreduce`` each) instead of one call.
            ``None`` (default) reduces it at once. With MPICH on one machine, pieces of a few
            MB reduced a 40 MB buffer about twice as fast (``benchmarks/bench_allreduce.py``).
    """

    name = 'flat'
    segment_bytes: Optional[int] = None

    def _segments(self, buf: numpy.ndarray) -> list:
        if not self.segment_bytes:
            return [buf]
        step = max(1, int(self.segment_bytes) // buf.itemsize)
        return [buf[i:i + step] for i in range(0, buf.size, step)]

    def multi_node_mean_grad(self, model: Any, zero_fill: bool = False) -> None:
        handle = self._start_mean_grad(model, zero_fill, blocking=True)
        self._finish_mean_grad(handle)

    def _start_mean_grad(self, model: Any, zero_fill: bool, blocking: bool = False) -> tuple:
        MPI = _mpi.import_mpi()
        params = self._check_model(model, zero_fill, 'multi_node_mean_grad')
        packing = _Packing(params, zero_fill)
        dtype = self._comm_dtype(params)
        gpu = [p for p in params if backend.is_cupy_array(p.array)]
        if gpu:
            # Pack on the GPU (one kernel per parameter), copy the whole buffer once.
            xp = backend.get_array_module(gpu[0].array)
            dev_buf = xp.empty(packing.length, dtype)
            packing.pack(dev_buf)
            buf = dev_buf.get()
        else:
            buf = numpy.empty(packing.length, dtype)
            packing.pack(buf)
        requests = []
        for piece in self._segments(buf):
            spec, op = _mpi.mpi_buffer_and_op(piece)
            if blocking:
                self._mpi_comm.Allreduce(MPI.IN_PLACE, spec, op=op)
            else:
                requests.append(self._mpi_comm.Iallreduce(MPI.IN_PLACE, spec, op=op))
        return packing, buf, requests, bool(gpu)

    def _finish_mean_grad(self, handle: tuple) -> None:
        MPI = _mpi.import_mpi()
        packing, buf, requests, gpu = handle
        MPI.Request.Waitall(requests)
        if gpu:
            buf = backend.to_gpu(buf, packing.params[0].array.device.id)
        packing.unpack(buf, 1.0 / self.size)

    def bcast_data(self, model: Any) -> None:
        for group in _by_dtype(_sorted_params(model, 'bcast_data')):
            host = numpy.concatenate([backend.to_cpu(p.array).reshape(-1) for p in group])
            self._bcast_host(host, 0)
            if self.rank != 0:
                offset = 0
                for p in group:
                    backend.copyto(p.array, host[offset:offset + p.size].reshape(p.shape))
                    offset += p.size


class NonCudaAwareCommunicator(FlatCommunicator):
    """ChainerMN's ``'non_cuda_aware'``: for an MPI without CUDA support. The flat
    communicator already stages CuPy gradients through host memory, so this is it by name."""

    name = 'non_cuda_aware'


class HierarchicalCommunicator(FlatCommunicator):
    """ChainerMN 6's ``'hierarchical'`` (reduce within each node, then across nodes). MPI
    libraries pick node-aware reductions themselves, so this is the flat communicator by
    name."""

    name = 'hierarchical'


class TwoDimensionalCommunicator(FlatCommunicator):
    """ChainerMN 6's ``'two_dimensional'`` (reduce-scatter within nodes, all-reduce across
    them): the flat communicator by name, as :class:`HierarchicalCommunicator`."""

    name = 'two_dimensional'


class SingleNodeCommunicator(FlatCommunicator):
    """ChainerMN 6's ``'single_node'``: the flat communicator, for jobs on one machine only.

    Raises:
        ValueError: The processes run on more than one node.
    """

    name = 'single_node'

    def __init__(self, mpi_comm: Any = None, allreduce_grad_dtype: Any = None) -> None:
        super().__init__(mpi_comm, allreduce_grad_dtype)
        if self.inter_size != 1:
            raise ValueError(f'SingleNodeCommunicator: the processes run on {self.inter_size} '
                             f'nodes; it works within one node only (use \'flat\')')


_CLASSES = {
    'naive': NaiveCommunicator, 'flat': FlatCommunicator,
    'non_cuda_aware': NonCudaAwareCommunicator, 'hierarchical': HierarchicalCommunicator,
    'two_dimensional': TwoDimensionalCommunicator, 'single_node': SingleNodeCommunicator,
}
_NAMES = ('naive', 'flat', 'pure_nccl', 'non_cuda_aware', 'hierarchical', 'two_dimensional',
          'single_node')


def create_communicator(communicator_name: str = 'flat', mpi_comm: Any = None,
                        allreduce_grad_dtype: Any = None) -> MpiCommunicatorBase:
    """Create the communicator every process of the job uses (collective).

    Args:
        communicator_name: ``'flat'`` (one packed ``Allreduce`` per step), ``'naive'`` (one per
            parameter) or ``'pure_nccl'`` (CuPy gradients reduced by NCCL on the GPUs).
            ChainerMN's other names are accepted: ``'non_cuda_aware'``, ``'hierarchical'``
            and ``'two_dimensional'`` give the flat communicator under their own class names,
            ``'single_node'`` too after checking that the job runs on one node.
        mpi_comm: The ``mpi4py.MPI.Comm`` to use; ``MPI.COMM_WORLD`` when ``None``.
        allreduce_grad_dtype: dtype the gradients travel in: ``None`` (their own dtype),
            ``numpy.float16`` (half the bytes), ``float32`` or ``float64``.

    Returns:
        The communicator.

    Raises:
        ImportError: mpi4py is not installed (``pip install "chainlet-dl[mpi]"``).

    Example (run under ``mpiexec -n 2 python script.py``)::

        comm = chainlet.distributed.create_communicator('flat')
        total = comm.allreduce(numpy.ones(3, numpy.float32))   # [2., 2., 2.] on both ranks
    """
    if not isinstance(communicator_name, str):
        raise TypeError(f'create_communicator: argument communicator_name: expected a str, got '
                        f'{type(communicator_name).__name__}')
    if communicator_name not in _NAMES:
        raise ValueError(f'create_communicator: argument communicator_name: expected one of '
                         f'{", ".join(map(repr, _NAMES))}, got {communicator_name!r}')
    _check_grad_dtype('create_communicator', allreduce_grad_dtype)
    if communicator_name in _CLASSES:
        return _CLASSES[communicator_name](mpi_comm, allreduce_grad_dtype)
    from chainlet.distributed.pure_nccl import PureNcclCommunicator
    return PureNcclCommunicator(mpi_comm, allreduce_grad_dtype)
