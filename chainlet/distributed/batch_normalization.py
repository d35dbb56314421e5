"""``MultiNodeBatchNormalization``: batch normalization whose statistics cover the batches of
all processes, as if the job's whole batch had been normalized on one machine."""
from __future__ import annotations

import copy
import importlib
from typing import Any, Optional, Sequence, Union

import numpy

from chainlet import _config, backend
from chainlet.function_node import FunctionNode
from chainlet.links.normalization.batch_normalization import BatchNormalization
from chainlet.variable import Variable

# The module, not the function of the same name that the package exports.
_bn = importlib.import_module('chainlet.functions.normalization.batch_normalization')
_NAME = 'multi_node_batch_normalization'


class MultiNodeBatchNormalizationFunction(FunctionNode):
    """``y = gamma * (x - mean) / sqrt(var + eps) + beta`` with mean and variance over the
    reduced axes of ``x`` on every process.

    Forward reduces ``(sum x, sum x**2, count)`` with one ``allreduce``; backward reduces
    ``(sum gy, sum gy * x_hat)`` with one more. The gradients of ``gamma`` and ``beta`` stay
    local (the multi-node optimizer averages them); the gradient of ``x`` is that of the sum of
    every process's loss, which is what the averaging of the parameter gradients downstream
    expects. Not differentiable twice.

    Args:
        comm: A communicator (its ``allreduce`` sums arrays over the processes).
        eps: Added to the variance before the square root.
        running_mean: Array updated in place with ``decay`` (``None``: not tracked).
        running_var: Array updated in place, with the unbiased ``M / (M - 1)`` correction, ``M``
            being the number of values per channel over all processes.
        decay: Decay rate of the running averages.
        axis: Axes to reduce over (``None``: axis 0 and the axes after the channel axes).
    """

    def __init__(self, comm: Any, eps: float = 2e-5, running_mean: Any = None,
                 running_var: Any = None, decay: float = 0.9, axis: Any = None) -> None:
        self.comm = comm
        self.eps = eps
        self.running_mean = running_mean
        self.running_var = running_var
        self.decay = decay
        self.axis = _bn.parse_axis('MultiNodeBatchNormalization', axis)

    def forward(self, inputs: tuple) -> tuple:
        x, gamma, beta = inputs
        axes = _bn.compute_axes(_NAME, self.axis, x.ndim, gamma.ndim)
        _bn.check_params(_NAME, x, axes, ('gamma', 'beta'), (gamma, beta))
        xp = backend.get_array_module(x)
        acc = numpy.float64  # E[x^2] - E[x]^2 cancels badly in float32
        s = x.sum(axis=axes, dtype=acc)
        sq = xp.square(x, dtype=acc).sum(axis=axes)
        m_local = x.size // max(s.size, 1)
        buf = xp.concatenate([s.reshape(-1), sq.reshape(-1), xp.full(1, m_local, acc)])
        buf = self.comm.allreduce(buf)
        n = s.size
        m = float(buf[-1])
        mean = (buf[:n] / max(m, 1.0)).reshape(s.shape)
        var = xp.maximum(buf[n:2 * n].reshape(s.shape) / max(m, 1.0) - mean * mean, 0.0)
        shape = _bn.broadcast_shape(x.shape, axes)
        inv_std = 1.0 / xp.sqrt(var + self.eps)
        # Under mixed16 (float16 x, float32 gamma) normalize in gamma's wider type.
        cdt = numpy.promote_types(x.dtype, gamma.dtype)
        x_hat = ((x - mean.reshape(shape)) * inv_std.reshape(shape)).astype(cdt)
        y = gamma.reshape(shape) * x_hat + beta.reshape(shape)
        if self.running_mean is not None:
            self.running_mean *= self.decay
            self.running_mean += ((1 - self.decay) * mean).astype(self.running_mean.dtype)
        if self.running_var is not None:
            unbiased = var * (m / (m - 1)) if m > 1 else var
            self.running_var *= self.decay
            self.running_var += ((1 - self.decay) * unbiased).astype(self.running_var.dtype)
        self._axes, self._shape, self._m = axes, shape, m
        self._x_hat, self._inv_std = x_hat, inv_std.astype(cdt)
        self.retain_inputs((1,))
        return y.astype(x.dtype, copy=False),

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gamma = self.get_retained_inputs()[0].array
        gy_in = grad_outputs[0].array
        axes, shape, x_hat = self._axes, self._shape, self._x_hat
        gy = gy_in.astype(x_hat.dtype, copy=False)
        xp = backend.get_array_module(gy)
        gbeta = gy.sum(axis=axes, dtype=numpy.float64)
        ggamma = (gy * x_hat).sum(axis=axes, dtype=numpy.float64)
        result = [None, ggamma.astype(gamma.dtype), gbeta.astype(gamma.dtype)]
        if 0 in indexes:
            n = gbeta.size
            total = self.comm.allreduce(xp.concatenate([gbeta.reshape(-1), ggamma.reshape(-1)]))
            gbeta_all = total[:n].reshape(shape).astype(gy.dtype)
            ggamma_all = total[n:].reshape(shape).astype(gy.dtype)
            scale = (gamma * self._inv_std).reshape(shape)
            m = gy.dtype.type(self._m)
            result[0] = (scale * (gy - (x_hat * ggamma_all + gbeta_all) / m)).astype(
                gy_in.dtype, copy=False)
        return tuple(result[i] for i in indexes)


def multi_node_batch_normalization(x: Any, gamma: Any, beta: Any, comm: Any,
                                   eps: float = 2e-5, running_mean: Any = None,
                                   running_var: Any = None, decay: float = 0.9,
                                   axis: Any = None) -> Variable:
    """Batch normalization with statistics over all processes (collective; see
    :class:`MultiNodeBatchNormalizationFunction`).

    Returns:
        Variable of the shape and dtype of ``x``.
    """
    return MultiNodeBatchNormalizationFunction(comm, eps, running_mean, running_var, decay,
                                               axis).apply((x, gamma, beta))[0]


_BACKENDS = ('auto', 'mpi', 'nccl')


def select_communication_backend(comm: Any, name: str) -> str:
    """The backend that carries the statistics: ``'mpi'`` or ``'nccl'``.

    ``'auto'`` picks NCCL for a ``PureNcclCommunicator`` and MPI otherwise; ``'nccl'`` needs a
    ``PureNcclCommunicator``.

    Raises:
        ValueError: An unknown name, or ``'nccl'`` with another communicator.
    """
    if name not in _BACKENDS:
        raise ValueError(f'MultiNodeBatchNormalization: argument communication_backend: '
                         f'expected one of {", ".join(map(repr, _BACKENDS))}, got {name!r}')
    nccl = getattr(comm, 'name', None) == 'pure_nccl'
    if name == 'nccl' and not nccl:
        raise ValueError(f"MultiNodeBatchNormalization: communication_backend='nccl' needs a "
                         f"PureNcclCommunicator, got {type(comm).__name__}")
    if name == 'auto':
        return 'nccl' if nccl else 'mpi'
    return name


class MultiNodeBatchNormalization(BatchNormalization):
    """A ``BatchNormalization`` link whose training statistics cover every process's batch.

    With a per-process batch of ``b`` on ``n`` processes it normalizes as one machine with a
    batch of ``n * b`` would: one ``allreduce`` of the per-channel sums in forward, one of the
    gradient sums in backward. In test mode it uses its running averages, like
    ``BatchNormalization``; all processes must call it together in training mode.

    Args:
        size: Channel shape (an int or a tuple).
        comm: A communicator from :func:`create_communicator`.
        decay: Decay rate of the running averages.
        eps: Added to the variance before the square root.
        dtype: dtype of the parameters and statistics (default float32).
        use_gamma: Learn a scale.
        use_beta: Learn a shift.
        initial_gamma: Initializer of ``gamma``; default 1.
        initial_beta: Initializer of ``beta``; default 0.
        axis: Axes to average over (default: axis 0 and the axes after the channel axes).
        communication_backend: ``'auto'`` (default), ``'mpi'`` or ``'nccl'`` (a
            ``PureNcclCommunicator`` only; see :func:`select_communication_backend`). The
            statistics travel through the communicator's ``allreduce`` in every case.

    Example (under ``mpiexec``)::

        bn = chainlet.distributed.MultiNodeBatchNormalization(64, comm)
    """

    def __init__(self, size: Union[int, Sequence[int]], comm: Any, decay: float = 0.9,
                 eps: float = 2e-5, dtype: Any = None, use_gamma: bool = True,
                 use_beta: bool = True, initial_gamma: Any = None, initial_beta: Any = None,
                 axis: Optional[Union[int, Sequence[int]]] = None,
                 communication_backend: str = 'auto') -> None:
        if size is None:
            raise ValueError('MultiNodeBatchNormalization: argument size: expected the channel '
                             'shape (an int or a tuple), got None')
        super().__init__(size, decay=decay, eps=eps, dtype=dtype, use_gamma=use_gamma,
                         use_beta=use_beta, initial_gamma=initial_gamma,
                         initial_beta=initial_beta, axis=axis)
        self.comm = comm
        self._communication_backend = select_communication_backend(
            comm, communication_backend)

    def __deepcopy__(self, memo: dict) -> 'MultiNodeBatchNormalization':
        # The communicator (an MPI handle) is shared by copies, never copied.
        comm = self.__dict__.pop('comm')
        try:
            memo[id(comm)] = comm
            cls = type(self)
            ret = cls.__new__(cls)
            memo[id(self)] = ret
            for k, v in self.__dict__.items():
                ret.__dict__[k] = copy.deepcopy(v, memo)
        finally:
            self.__dict__['comm'] = comm
        ret.__dict__['comm'] = comm
        return ret

    # Chainer's signature: finetune may be positional here (BatchNormalization's is keyword-only)
    def forward(self, x: Any, finetune: bool = False) -> Variable:  # type: ignore[override]
        """Normalize ``x`` with statistics over all processes (training) or the running
        averages (``chainlet.config.train`` is ``False``)."""
        if not _config.config.train:
            return super().forward(x)
        xp = self.xp
        gamma = self.gamma if self.gamma is not None else \
            xp.ones(self.avg_mean.shape, self._dtype)
        beta = self.beta if self.beta is not None else \
            xp.zeros(self.avg_mean.shape, self._dtype)
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        return multi_node_batch_normalization(x, gamma, beta, self.comm, self.eps,
                                              self.avg_mean, self.avg_var, decay, self.axis)
