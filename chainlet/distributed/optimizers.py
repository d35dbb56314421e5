"""``create_multi_node_optimizer``: an optimizer that averages gradients over all processes."""
from __future__ import annotations

from typing import Any, Callable, Optional

from chainlet.distributed.communicators import CommunicatorBase


def _signature(target: Any) -> tuple:
    """Which parameters exist and are initialized: a change calls for a new broadcast."""
    return tuple(sorted((name, p.array is not None, p.shape if p.array is not None else None)
                        for name, p in target.namedparams()))


class _MultiNodeOptimizer:
    """Wraps an optimizer; reads and writes of other attributes go to the wrapped one."""

    def __init__(self, actual_optimizer: Any, communicator: CommunicatorBase,
                 zero_fill: bool, broadcast_on_setup: bool = True) -> None:
        d = self.__dict__
        d['actual_optimizer'] = actual_optimizer
        d['communicator'] = communicator
        d['zero_fill'] = zero_fill
        d['broadcast_on_setup'] = broadcast_on_setup
        d['_synced'] = None

    def setup(self, link: Any) -> '_MultiNodeOptimizer':
        """Set up the wrapped optimizer on ``link``; if every parameter is initialized already,
        broadcast rank 0's values now (collective), so the first update is a real one (unless
        ``broadcast_on_setup`` is off: then the first update broadcasts)."""
        self.actual_optimizer.setup(link)
        self.__dict__['_synced'] = None
        if self.broadcast_on_setup and all(p.array is not None for p in link.params()):
            self._broadcast(link)
        return self

    def _broadcast(self, target: Any) -> None:
        self.communicator.bcast_data(target)
        self.__dict__['_synced'] = _signature(target)

    def mark_synced(self) -> None:
        """Declare the parameters identical on every process (all resumed one checkpoint),
        so that the next update averages and updates instead of broadcasting."""
        self.__dict__['_synced'] = _signature(self.actual_optimizer.target)

    def _backward(self, lossfun: Optional[Callable], args: tuple, kwds: dict) -> None:
        if lossfun is None:
            return
        target = self.actual_optimizer.target
        loss = lossfun(*args, **kwds)
        target.cleargrads()
        loss.backward()
        del loss

    def update(self, lossfun: Optional[Callable] = None, *args: Any, **kwds: Any) -> None:
        """Average the gradients over all processes, then update (collective).

        With ``lossfun``, first computes the loss, clears the gradients and runs backward. When
        parameters appeared or were initialized since the last broadcast (lazy links after
        their first forward), this call broadcasts rank 0's parameters instead and updates
        nothing: the gradients were computed from parameters that differed between processes.
        """
        self._backward(lossfun, args, kwds)
        target = self.actual_optimizer.target
        if _signature(target) != self._synced:
            self._broadcast(target)
            return
        self.communicator.multi_node_mean_grad(target, self.zero_fill)
        self.actual_optimizer.update()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__['actual_optimizer'], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_optimizer, name, value)

    def __repr__(self) -> str:
        return f'MultiNodeOptimizer({self.actual_optimizer!r}, {self.communicator!r})'


class _DoubleBufferingOptimizer(_MultiNodeOptimizer):
    """Overlaps the averaging of step ``t``'s gradients with step ``t + 1``'s computation; each
    update applies the previous step's averaged gradients."""

    def __init__(self, actual_optimizer: Any, communicator: CommunicatorBase,
                 zero_fill: bool, broadcast_on_setup: bool = True) -> None:
        super().__init__(actual_optimizer, communicator, zero_fill, broadcast_on_setup)
        self.__dict__['_pending'] = None
        self.__dict__['_stream'] = None

    def _broadcast(self, target: Any) -> None:
        self.wait()
        super()._broadcast(target)

    def wait(self) -> None:
        """Finish the reduction in flight, if any (its gradients are dropped)."""
        pending = self.__dict__['_pending']
        if pending is not None:
            self.communicator._finish_mean_grad(pending)
            self.__dict__['_pending'] = None

    def _start(self, target: Any) -> Any:
        comm = self.communicator
        if comm.name != 'pure_nccl':
            return comm._start_mean_grad(target, self.zero_fill)
        if self._stream is None:
            import cupy
            self.__dict__['_stream'] = cupy.cuda.Stream(non_blocking=True)
        return comm._start_mean_grad(target, self.zero_fill, self._stream)

    def update(self, lossfun: Optional[Callable] = None, *args: Any, **kwds: Any) -> None:
        """Start averaging this step's gradients; apply the previous step's (collective).

        The first update after a broadcast only starts the reduction.
        """
        self._backward(lossfun, args, kwds)
        target = self.actual_optimizer.target
        if _signature(target) != self._synced:
            self._broadcast(target)
            return
        started = self._start(target)  # packs the current gradients before they are replaced
        previous = self.__dict__['_pending']
        self.__dict__['_pending'] = started
        if previous is None:
            return
        self.communicator._finish_mean_grad(previous)
        self.actual_optimizer.update()


def create_multi_node_optimizer(actual_optimizer: Any, communicator: CommunicatorBase,
                                double_buffering: bool = False,
                                zero_fill: bool = True, *,
                                broadcast_on_setup: bool = True) -> Any:
    """Wrap an optimizer so that ``update()`` averages the gradients over all processes.

    Every process runs the same script: forward and backward on its own shard of the batch,
    then ``update()``, which reduces the gradients (one collective) and applies the wrapped
    optimizer's rule, so all processes keep identical parameters. Rank 0's parameters are
    broadcast at ``setup`` (or, for lazily initialized links, at the first update, which then
    updates nothing) and again whenever new parameters get initialized.

    Args:
        actual_optimizer: The optimizer to wrap, e.g. ``chainlet.optimizers.Adam()``. Other
            attributes (``lr``, ``t``, ``add_hook``, ``serialize``...) are the wrapped one's.
        communicator: A communicator from :func:`create_communicator`.
        double_buffering: Average step ``t``'s gradients while step ``t + 1`` computes, and
            update with them one step late (``'flat'``: MPI ``Iallreduce``; ``'pure_nccl'``: a
            separate CUDA stream). Can change convergence; not for ``'naive'``.
        zero_fill: Parameters without a gradient on some process take part with zeros, so the
            collective has the same layout everywhere (a gradient that no process has stays
            ``None``, as in one-process training).
        broadcast_on_setup: Broadcast at ``setup`` when every parameter is initialized, so
            that the first update trains. ``False`` keeps ChainerMN's rule: the first update
            after each ``setup`` only broadcasts.

    Returns:
        The multi-node optimizer; call ``setup(model)`` on it as usual.

    Example (under ``mpiexec``)::

        optimizer = chainlet.distributed.create_multi_node_optimizer(
            chainlet.optimizers.Adam(), comm)
        optimizer.setup(model)
    """
    if not isinstance(communicator, CommunicatorBase):
        raise TypeError(f'create_multi_node_optimizer: argument communicator: expected a '
                        f'communicator from create_communicator, got '
                        f'{type(communicator).__name__}')
    if not hasattr(actual_optimizer, 'update') or not hasattr(actual_optimizer, 'setup'):
        raise TypeError(f'create_multi_node_optimizer: argument actual_optimizer: expected an '
                        f'Optimizer, got {type(actual_optimizer).__name__}')
    if double_buffering:
        if not hasattr(communicator, '_start_mean_grad'):
            raise ValueError(f"create_multi_node_optimizer: double_buffering needs the 'flat' or "
                             f"'pure_nccl' communicator, got {type(communicator).__name__}")
        return _DoubleBufferingOptimizer(actual_optimizer, communicator, zero_fill,
                                         broadcast_on_setup)
    return _MultiNodeOptimizer(actual_optimizer, communicator, zero_fill, broadcast_on_setup)
