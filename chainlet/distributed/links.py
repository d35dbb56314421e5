"""Links for models spread over processes: :class:`MultiNodeChainList` (model parallelism),
:func:`create_multi_node_n_step_rnn` (an RNN whose states pass between processes) and
:func:`create_mnbn_model` (a model with every ``BatchNormalization`` made multi-node)."""
from __future__ import annotations

import collections
import copy
from typing import Any, Optional, Sequence, Union

from chainlet.distributed import functions as mn_functions
from chainlet.link import Chain, ChainList, Link, Sequential

Ranks = Optional[Union[int, Sequence[int]]]


def _ranks(where: str, value: Ranks) -> Optional[list]:
    if value is None:
        return None
    if isinstance(value, int):
        return [value]
    ranks = list(value)
    if not all(isinstance(r, int) for r in ranks):
        raise TypeError(f'MultiNodeChainList.add_link: argument {where}: expected None, an int '
                        f'or a list of ints, got {value!r}')
    return ranks


class MultiNodeChainList(ChainList):
    """A model whose components run on several processes, joined by :func:`send`/:func:`recv`.

    Each process builds the same list of components in the same order, each with the ranks it
    receives its inputs from (``rank_in``; ``None``: the model's inputs) and sends its output
    to (``rank_out``; ``None``: the model's output). Calling the model runs the components in
    order: inputs are received, outputs sent; the variables are tied together with
    :func:`pseudo_connect` so that one ``backward()`` on the returned variable runs the whole
    graph of this process, including the sends and receives.

    Args:
        comm: A communicator from ``create_communicator``.

    Example (under ``mpiexec -n 2``)::

        class Model(MultiNodeChainList):
            def __init__(self, comm):
                super().__init__(comm)
                if comm.rank == 0:
                    self.add_link(Encoder(), rank_in=None, rank_out=1)
                else:
                    self.add_link(Decoder(), rank_in=0, rank_out=None)
    """

    def __init__(self, comm: Any) -> None:
        super().__init__()
        self._comm = comm
        self._rank_inouts: list = []

    def add_link(self, link: Link, rank_in: Ranks = None,  # type: ignore[override]
                 rank_out: Ranks = None) -> None:
        """Append a component receiving from ``rank_in`` and sending to ``rank_out`` (a rank,
        a list of ranks, or ``None``; this process's own rank goes through a local queue).

        Raises:
            ValueError: A second component with ``rank_out=None`` (one model output only).
        """
        rank_in, rank_out = _ranks('rank_in', rank_in), _ranks('rank_out', rank_out)
        if rank_out is None and any(out is None for _, out in self._rank_inouts):
            raise ValueError('MultiNodeChainList.add_link: only one component may have '
                             'rank_out=None (the model output)')
        super().add_link(link)
        self._rank_inouts.append((rank_in, rank_out))

    def _receive(self, rank_in: list, local: collections.deque, delegate: Any) -> list:
        xs = []
        for rank in rank_in:
            if rank == self._comm.rank:
                x = local.popleft()
                if delegate is not None:
                    x, = mn_functions.pseudo_connect(delegate, x)
            else:
                x = mn_functions.recv(self._comm, rank=rank, delegate_variable=delegate)
            xs.append(x)
            delegate = x
        return xs

    def _send(self, x: Any, rank_out: list, local: collections.deque, delegate: Any) -> Any:
        for i, rank in enumerate(rank_out):
            if delegate is not None and (rank == self._comm.rank or i > 0):
                x, = mn_functions.pseudo_connect(delegate, x)
            if rank == self._comm.rank:
                local.append(x)
                delegate = x
            else:
                delegate = mn_functions.send(x, self._comm, rank=rank)
        return delegate

    def forward(self, *inputs: Any) -> Any:
        """Run every component (see the class docstring); returns the model output, or the
        delegate variable of the last send on a process without output."""
        local: collections.deque = collections.deque()
        y = delegate = None
        for i, (f, (rank_in, rank_out)) in enumerate(zip(self._children, self._rank_inouts)):
            if rank_in is None:
                if i == 0 or delegate is None:
                    x = f(*inputs)
                else:
                    x = f(*mn_functions.pseudo_connect(delegate, *inputs))
            else:
                x = f(*self._receive(rank_in, local, delegate))
                delegate = None
            if rank_out is None:
                y = delegate = x
            else:
                delegate = self._send(x, rank_out, local, delegate)
        if local:
            raise ValueError('MultiNodeChainList: values sent to this process itself were not '
                             'all received; check that every rank_out has its rank_in')
        if y is None:
            return delegate
        if y is delegate:
            return y
        y, = mn_functions.pseudo_connect(delegate, y)
        return y


class MultiNodeNStepRNN(Chain):
    """An ``NStep*`` RNN link whose initial states come from ``rank_in`` and whose final
    states go to ``rank_out`` (see :func:`create_multi_node_n_step_rnn`)."""

    def __init__(self, link: Any, communicator: Any, rank_in: Optional[int],
                 rank_out: Optional[int]) -> None:
        from chainlet.links.connection.n_step_rnn import NStepRNNBase
        if not isinstance(link, NStepRNNBase):
            raise ValueError(f'create_multi_node_n_step_rnn: argument actual_link: expected an '
                             f'NStepRNN, NStepLSTM or NStepGRU link, got {type(link).__name__}')
        super().__init__()
        with self.init_scope():
            self.actual_rnn = link
        self.communicator = communicator
        self.rank_in = rank_in
        self.rank_out = rank_out
        self.n_cells = link.n_cells

    def forward(self, *inputs: Any) -> tuple:
        """Run the RNN on ``inputs`` (its ``xs``); returns the RNN's outputs followed by the
        delegate variable of the sends (``None`` when ``rank_out`` is ``None``)."""
        cells: list = [None] * self.n_cells
        if self.rank_in is not None:
            cells = [mn_functions.recv(self.communicator, rank=self.rank_in)
                     for _ in range(self.n_cells)]
        outputs = self.actual_rnn(*cells, *inputs)
        delegate = None
        if self.rank_out is not None:
            states = outputs[:-1]
            cell = states[0]
            for i in range(self.n_cells):
                delegate = mn_functions.send(cell, self.communicator, rank=self.rank_out)
                if i + 1 < self.n_cells:
                    cell, = mn_functions.pseudo_connect(delegate, states[i + 1])
        return tuple(outputs) + (delegate,)


def create_multi_node_n_step_rnn(actual_link: Any, communicator: Any,
                                 rank_in: Optional[int] = None,
                                 rank_out: Optional[int] = None) -> MultiNodeNStepRNN:
    """Wrap an ``NStepLSTM``/``NStepGRU``/``NStepRNN*`` link so that its initial states are
    received from ``rank_in`` and its final states sent to ``rank_out`` (e.g. an encoder on
    one process and a decoder on another).

    Returns:
        The wrapping link; calling it returns the RNN's outputs and the delegate variable.
    """
    return MultiNodeNStepRNN(actual_link, communicator, rank_in, rank_out)


def create_mnbn_model(link: Link, comm: Any, communication_backend: str = 'auto') -> Link:
    """A deep copy of ``link`` with every ``BatchNormalization`` replaced by a
    ``MultiNodeBatchNormalization`` holding the same parameters and statistics.

    Args:
        link: The model (a Chain, ChainList, Sequential or any link).
        comm: A communicator from ``create_communicator``.
        communication_backend: Passed to ``MultiNodeBatchNormalization``.

    Returns:
        The new model; ``link`` is left unchanged.
    """
    from chainlet.distributed.batch_normalization import MultiNodeBatchNormalization
    from chainlet.links.normalization.batch_normalization import BatchNormalization
    if isinstance(link, BatchNormalization) and \
            not isinstance(link, MultiNodeBatchNormalization):
        mnbn = MultiNodeBatchNormalization(
            link.avg_mean.shape, comm, decay=link.decay, eps=link.eps,
            dtype=link.avg_mean.dtype, use_gamma=getattr(link, 'gamma', None) is not None,
            use_beta=getattr(link, 'beta', None) is not None, axis=link.axis,
            communication_backend=communication_backend)
        mnbn.copyparams(link)
        for name in link._persistent:
            mnbn.__dict__[name] = copy.deepcopy(link.__dict__[name])
        return mnbn
    if isinstance(link, Chain):
        chain = copy.deepcopy(link)
        for name in link._children:
            chain.__dict__[name] = create_mnbn_model(link.__dict__[name], comm,
                                                     communication_backend)
        return chain
    if isinstance(link, (Sequential, ChainList)):
        chain_list = copy.deepcopy(link)
        for i, child in enumerate(link):
            chain_list[i] = create_mnbn_model(child, comm, communication_backend)
        return chain_list
    return copy.deepcopy(link)
