"""Differentiable communication between processes: model parallelism (ChainerMN's functions).

A model may be cut across processes: one process computes the first layers and
:func:`send` s the activations; another :func:`recv` s them and computes the rest. Backward
runs the other way: the receiver's ``Recv`` node sends the gradient back, the sender's ``Send``
node receives it and backpropagation goes on there. The collectives (:func:`allgather`,
:func:`alltoall`, :func:`bcast`, :func:`gather`, :func:`scatter`) are differentiable the same
way. Every process must run the matching backward (the sender calls ``backward()`` on the
variable :func:`send` returned, see :func:`pseudo_connect`).

Example (under ``mpiexec -n 2``)::

    comm = chainlet.distributed.create_communicator('naive')
    if comm.rank == 0:
        h = model_a(x)
        phi = cmn_functions.send(h, comm, rank=1)   # a dummy variable
        phi.backward()                               # waits for rank 1's gradient of h
    else:
        h = cmn_functions.recv(comm, rank=0)
        loss = loss_fn(model_b(h), t)
        loss.backward()                              # sends the gradient of h to rank 0
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy

from chainlet import backend
from chainlet.function_node import FunctionNode
from chainlet.variable import Variable

_float16 = numpy.dtype(numpy.float16)


def _xp(arrays: Sequence[Any]) -> Any:
    arrays = [a for a in arrays if a is not None]
    return backend.get_array_module(*arrays) if arrays else numpy


def _dummy(xp: Any) -> Variable:
    """The empty float32 input that lets a node with no real input take part in backward."""
    v = Variable(xp.zeros((0,), numpy.float32))
    v.name = 'dummy_var'
    return v


def _fill(grads: Sequence[Any], like: Sequence[tuple]) -> list:
    """Gradients as arrays, with zeros for outputs that received none (``like``: the outputs'
    ``(shape, dtype)`` and array module)."""
    out = []
    for g, (shape, dtype, xp) in zip(grads, like):
        if g is None:
            out.append(xp.zeros(shape, dtype))
        else:
            out.append(g.array if isinstance(g, Variable) else g)
    return out


def _check_peer(where: str, comm: Any, rank: Any) -> None:
    if isinstance(rank, bool) or not isinstance(rank, (int, numpy.integer)):
        raise TypeError(f'{where}: argument rank: expected an int, got {type(rank).__name__}')
    if rank == comm.rank:
        raise ValueError(f'{where}: argument rank: expected a rank other than this process\'s '
                         f'own ({comm.rank}): a process sending to itself would deadlock')


class Send(FunctionNode):
    """Send the inputs (but the last, a dummy) to ``peer_rank``; its output is an empty
    "delegate" variable whose backward receives the inputs' gradients from the peer."""

    def __init__(self, comm: Any, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return f'Send (peer_rank: {self.peer_rank})'

    def forward(self, inputs: tuple) -> tuple:
        xs = inputs[:-1]
        self._specs = [(x.shape, x.dtype) for x in xs]
        self.comm.send(xs[0] if len(xs) == 1 else tuple(xs), self.peer_rank, self.peer_tag)
        return _xp(inputs).zeros((0,), numpy.float32),

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        xp = _xp([g.array for g in grad_outputs if g is not None])
        received = self.comm.recv(self.peer_rank, self.peer_tag)
        if not isinstance(received, tuple):
            received = (received,)
        gxs = [xp.asarray(g).astype(dtype, copy=False).reshape(shape)
               for g, (shape, dtype) in zip(received, self._specs)]
        return tuple(gxs) + (xp.zeros((0,), numpy.float32),)


class Recv(FunctionNode):
    """Receive arrays from ``peer_rank`` (its input is a delegate or dummy variable); backward
    sends the outputs' gradients to the peer."""

    def __init__(self, comm: Any, peer_rank: int, peer_tag: int) -> None:
        self.comm = comm
        self.peer_rank = peer_rank
        self.peer_tag = peer_tag

    @property
    def label(self) -> str:
        return f'Recv (peer_rank: {self.peer_rank})'

    def forward(self, inputs: tuple) -> tuple:
        data = self.comm.recv(self.peer_rank, self.peer_tag)
        data = data if isinstance(data, tuple) else (data,)
        self._like = [(d.shape, d.dtype, backend.get_array_module(d)) for d in data]
        self._in_specs = [(x.shape, x.dtype) for x in inputs]
        return data

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gys = _fill(grad_outputs, self._like)
        self.comm.send(tuple(gys), self.peer_rank, self.peer_tag)
        xp = self._like[0][2] if self._like else numpy
        return tuple(xp.zeros(shape, dtype) for shape, dtype in self._in_specs)


def send(x: Any, communicator: Any, rank: int, tag: int = 0) -> Variable:
    """Send ``x`` (a Variable or a tuple/list of them) to process ``rank``, differentiably.

    Args:
        x: What to send; the receiver gets arrays of the same shapes.
        communicator: A communicator from ``create_communicator``.
        rank: The receiving process (not this one).
        tag: MPI message tag; the receiver passes the same.

    Returns:
        An empty "delegate" Variable: calling ``backward()`` on it (or on a variable joined
        to it with :func:`pseudo_connect`) receives the gradients of ``x`` from ``rank``.
    """
    _check_peer('send', communicator, rank)
    xs = list(x) if isinstance(x, (tuple, list)) else [x]
    arrays = [v.array if isinstance(v, Variable) else v for v in xs]
    delegate, = Send(communicator, rank, tag).apply(xs + [_dummy(_xp(arrays))])
    delegate.name = 'delegate_variable'
    # Its (empty) gradient, so that ``delegate.backward()`` works as on a scalar loss.
    delegate.grad = _xp(arrays).zeros((0,), numpy.float32)
    return delegate


def recv(communicator: Any, rank: int, delegate_variable: Optional[Variable] = None,
         tag: int = 0, force_tuple: bool = False) -> Any:
    """Receive what process ``rank`` sent with :func:`send`, differentiably.

    Args:
        communicator: A communicator from ``create_communicator``.
        rank: The sending process (not this one).
        delegate_variable: The delegate of a previous :func:`send` of this process: backward
            then continues into that send (several sends and receives in one graph).
        tag: MPI message tag.
        force_tuple: Return a tuple even for a single received array.

    Returns:
        A Variable (a tuple of them when a tuple was sent, or with ``force_tuple``).
    """
    _check_peer('recv', communicator, rank)
    if delegate_variable is None:
        delegate_variable = _dummy(numpy)
    else:
        delegate_variable.name = 'delegate_variable'
    ys = Recv(communicator, rank, tag).apply((delegate_variable,))
    if len(ys) == 1 and not force_tuple:
        return ys[0]
    return ys


class PseudoConnect(FunctionNode):
    """Outputs the inputs but the first (the delegate), unchanged; backward gives the delegate
    a zero gradient so that backpropagation also runs through the delegate's graph."""

    def forward(self, inputs: tuple) -> tuple:
        self._delegate = (inputs[0].shape, inputs[0].dtype, backend.get_array_module(inputs[0]))
        return tuple(inputs[1:])

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        shape, dtype, xp = self._delegate
        return (Variable(xp.zeros(shape, dtype)),) + tuple(grad_outputs)


def pseudo_connect(delegate_variable: Optional[Variable], *actual_variables: Any) -> tuple:
    """Join a separate piece of graph (a :func:`send`'s delegate) to ``actual_variables``.

    The outputs hold the arrays of ``actual_variables``; in backward their gradients pass
    through unchanged and the delegate receives zeros, so one ``backward()`` call also runs
    the delegate's graph (e.g. receives the gradients of what this process sent).

    Args:
        delegate_variable: The variable to join (``None``: an empty one).
        actual_variables: The variables whose values are returned.

    Returns:
        A tuple of Variables, one per actual variable, of their shapes and dtypes.

    Example:
        >>> import numpy as np
        >>> from chainlet.distributed.functions import pseudo_connect
        >>> y, = pseudo_connect(np.zeros(0, np.float32), np.array([1.0, 2.0]))
        >>> y.array
        array([1., 2.])
    """
    if delegate_variable is None:
        arrays = [v.array if isinstance(v, Variable) else v for v in actual_variables]
        delegate_variable = _xp(arrays).empty((0,), numpy.float32)
    return PseudoConnect().apply((delegate_variable,) + tuple(actual_variables))


def _to_wire(x: Any) -> Any:
    # float16 gradients are summed in float32 (as ChainerMN does): float16 sums lose digits.
    return x.astype(numpy.float32) if x.dtype == _float16 else x


class AllGather(FunctionNode):
    """Every process's input, as one output per process."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        self._dtype = x.dtype
        ys = self.comm.allgather(x)
        self._like = [(y.shape, y.dtype, backend.get_array_module(y)) for y in ys]
        return ys

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gys = [_to_wire(g) for g in _fill(grad_outputs, self._like)]
        gxs = self.comm.alltoall(tuple(gys))
        xp = backend.get_array_module(gxs[0])
        return xp.stack(gxs).sum(axis=0).astype(self._dtype, copy=False),


class AllToAll(FunctionNode):
    """Output ``i`` is what process ``i`` passed as its input number ``rank``."""

    def __init__(self, comm: Any) -> None:
        self.comm = comm

    def forward(self, inputs: tuple) -> tuple:
        if len(inputs) != self.comm.size:
            raise ValueError(f'alltoall: expected {self.comm.size} inputs (the communicator '
                             f'size), got {len(inputs)}')
        self._in = [(x.shape, x.dtype) for x in inputs]
        ys = self.comm.alltoall(tuple(inputs))
        self._like = [(y.shape, y.dtype, backend.get_array_module(y)) for y in ys]
        return ys

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gxs = self.comm.alltoall(tuple(_fill(grad_outputs, self._like)))
        return tuple(g.astype(dtype, copy=False) for g, (_, dtype) in zip(gxs, self._in))


class Bcast(FunctionNode):
    """``root``'s input on every process; backward sums the gradients on ``root``."""

    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        self._in = (x.shape, x.dtype)
        y = self.comm.bcast(x if self.comm.rank == self.root else None, self.root)
        self._like = [(y.shape, y.dtype, backend.get_array_module(y))]
        return y,

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gy, = _fill(grad_outputs, self._like)
        gys = self.comm.gather(_to_wire(gy), self.root)
        if self.comm.rank != self.root:
            return None,
        xp = backend.get_array_module(gys[0])
        return xp.stack(gys).sum(axis=0).astype(self._in[1], copy=False),


class Gather(FunctionNode):
    """Every process's input as outputs on ``root`` (an empty output elsewhere)."""

    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple) -> tuple:
        x, = inputs
        self._dtype = x.dtype
        xp = backend.get_array_module(x)
        ys = self.comm.gather(x, self.root)
        if self.comm.rank != self.root:
            self._like = [((0,), x.dtype, xp)]
            return xp.zeros((0,), x.dtype),
        self._like = [(y.shape, y.dtype, xp) for y in ys]
        return ys

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gys = tuple(_fill(grad_outputs, self._like)) if self.comm.rank == self.root else None
        gx = self.comm.scatter(gys, self.root)
        return gx.astype(self._dtype, copy=False),


class Scatter(FunctionNode):
    """Process ``i`` outputs ``root``'s input number ``i``; backward gathers the gradients to
    ``root``."""

    def __init__(self, comm: Any, root: int) -> None:
        self.comm = comm
        self.root = root

    def forward(self, inputs: tuple) -> tuple:
        self._in = [(x.shape, x.dtype) for x in inputs]
        y = self.comm.scatter(tuple(inputs) if self.comm.rank == self.root else None,
                              self.root)
        self._like = [(y.shape, y.dtype, backend.get_array_module(y))]
        return y,

    def backward(self, indexes: tuple, grad_outputs: tuple) -> tuple:
        gy, = _fill(grad_outputs, self._like)
        gxs = self.comm.gather(gy, self.root)
        xp = backend.get_array_module(gy)
        if self.comm.rank == self.root:
            return tuple(g.astype(dtype, copy=False) for g, (_, dtype) in zip(gxs, self._in))
        return tuple(xp.zeros(shape, dtype) for shape, dtype in self._in)


def _one_or_tuple(ys: tuple) -> Any:
    # ChainerMN's functions return a lone output as a Variable, several as a tuple.
    return ys[0] if len(ys) == 1 else ys


def allgather(comm: Any, x: Any) -> Any:
    """Every process's ``x``, as a tuple of Variables (differentiable; collective; a single
    Variable when there is one process)."""
    return _one_or_tuple(AllGather(comm).apply((x,)))


def alltoall(comm: Any, xs: Sequence[Any]) -> Any:
    """Send ``xs[i]`` to process ``i``; returns what every process sent here (differentiable;
    collective). ``xs`` holds ``comm.size`` Variables of one dtype; a single Variable comes
    back when there is one process."""
    if len(xs) != comm.size:
        raise ValueError(f'alltoall: argument xs: expected {comm.size} variables (the '
                         f'communicator size), got {len(xs)}')
    return _one_or_tuple(AllToAll(comm).apply(tuple(xs)))


def bcast(comm: Any, x: Any, root: int = 0) -> Variable:
    """``root``'s ``x`` on every process (others may pass ``None``; differentiable:
    backward sums the gradients on ``root``)."""
    if comm.rank == root:
        return Bcast(comm, root).apply((x,))[0]
    return Bcast(comm, root).apply((_dummy(numpy),))[0]


def gather(comm: Any, x: Any, root: int = 0) -> Any:
    """Every process's ``x`` as a tuple on ``root``; an empty Variable elsewhere, whose
    ``backward()`` takes part in the backward scatter (differentiable; collective)."""
    ys = Gather(comm, root).apply((x,))
    if comm.rank != root:
        ys[0].grad = backend.get_array_module(ys[0].array).zeros((0,), ys[0].dtype)
    return _one_or_tuple(ys)


def scatter(comm: Any, xs: Any, root: int = 0) -> Variable:
    """Process ``i`` gets ``root``'s ``xs[i]`` (``xs``: ``comm.size`` variables, ignored
    elsewhere; differentiable: backward gathers the gradients to ``root``)."""
    if comm.rank == root:
        return Scatter(comm, root).apply(tuple(xs))[0]
    return Scatter(comm, root).apply((_dummy(numpy),))[0]
