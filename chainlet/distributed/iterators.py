"""Iterators that keep processes in step: :func:`create_multi_node_iterator` (one process
iterates, every process gets the same batches) and :func:`create_synchronized_iterator` (every
process shuffles its own copy of the data in the same order)."""
from __future__ import annotations

from typing import Any

import numpy

from chainlet.dataset.iterator import Iterator
from chainlet.serializers import Deserializer


def build_ctrl_msg(stop: bool, is_valid_data_type: bool, is_paired_dataset: bool,
                   is_new_epoch: bool, current_position: int) -> numpy.ndarray:
    """The control message the master of a multi-node iterator broadcasts before each batch,
    as a float32 array of 5 (ChainerMN's layout).

    Example:
        >>> from chainlet.distributed.iterators import build_ctrl_msg, parse_ctrl_msg
        >>> parse_ctrl_msg(build_ctrl_msg(False, True, False, True, 12))
        (False, True, False, True, 12)
    """
    return numpy.array([stop, is_valid_data_type, is_paired_dataset, is_new_epoch,
                        current_position], numpy.float32)


def parse_ctrl_msg(msg: Any) -> tuple:
    """``(stop, is_valid_data_type, is_paired_dataset, is_new_epoch, current_position)`` of a
    message made by :func:`build_ctrl_msg`."""
    return bool(msg[0]), bool(msg[1]), bool(msg[2]), bool(msg[3]), int(msg[4])


def _order_of(iterator: Any) -> Any:
    """A copy of an iterator's current order (``None``: in dataset order)."""
    order = getattr(getattr(iterator, '_state', None), 'order', None)
    return None if order is None else numpy.array(order)


def _is_paired(batch: list) -> bool:
    return bool(batch) and isinstance(batch[0], tuple) and len(batch[0]) == 2


class _MultiNodeIteratorMaster(Iterator):
    """Runs the actual iterator and broadcasts each step's state and batch."""

    def __init__(self, actual_iterator: Any, communicator: Any, rank_master: int) -> None:
        d = self.__dict__
        d['actual_iterator'] = actual_iterator
        d['communicator'] = communicator
        d['rank_master'] = rank_master
        communicator.bcast_obj((len(actual_iterator.dataset), _order_of(actual_iterator)),
                               root=rank_master)

    def __next__(self) -> list:
        it = self.actual_iterator
        try:
            batch = it.__next__()
            stop = False
        except StopIteration:
            batch, stop = None, True
        msg = build_ctrl_msg(stop, True, not stop and _is_paired(batch), it.is_new_epoch,
                             it.current_position)
        self.communicator.bcast_obj((msg, it.epoch, batch), root=self.rank_master)
        if stop:
            raise StopIteration
        return batch

    next = __next__

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__['actual_iterator'], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_iterator, name, value)

    @property
    def current_position(self) -> int:
        return self.actual_iterator.current_position

    @property
    def epoch(self) -> int:
        return self.actual_iterator.epoch

    @property
    def epoch_detail(self) -> float:
        return self.actual_iterator.epoch_detail

    @property
    def is_new_epoch(self) -> bool:
        return self.actual_iterator.is_new_epoch

    def reset(self) -> None:
        self.actual_iterator.reset()

    def serialize(self, serializer: Any) -> None:
        """Serialize the actual iterator, then give its state to the other processes (which
        serialize the master's state, not their own: they must deliver its batches)."""
        it = self.actual_iterator
        it.serialize(serializer)
        self.communicator.bcast_obj({
            'current_position': it.current_position, 'epoch': it.epoch,
            'is_new_epoch': it.is_new_epoch, 'order': _order_of(it),
            'previous_epoch_detail': getattr(it, 'previous_epoch_detail', None),
        }, root=self.rank_master)


class _MultiNodeIteratorSlave(Iterator):
    """Receives the master's batches and mirrors its position."""

    def __init__(self, communicator: Any, rank_master: int) -> None:
        self.communicator = communicator
        self.rank_master = rank_master
        self.epoch = 0
        self.current_position = 0
        self.is_new_epoch = False
        self.dataset_size, self._order = communicator.bcast_obj(None, root=rank_master)

    def __next__(self) -> list:
        msg, epoch, batch = self.communicator.bcast_obj(None, root=self.rank_master)
        stop, _, _, self.is_new_epoch, self.current_position = parse_ctrl_msg(msg)
        self.epoch = epoch
        if stop:
            raise StopIteration
        return batch

    next = __next__

    @property
    def epoch_detail(self) -> float:
        return self.epoch + self.current_position / max(self.dataset_size, 1)

    def serialize(self, serializer: Any) -> None:
        """Write the master's state (a snapshot of any process then resumes the master's
        iteration); when loading, the master's state still wins."""
        master = self.communicator.bcast_obj(None, root=self.rank_master)
        for key, value in master.items():
            if value is None:
                continue
            try:
                serializer(key, value)
            except KeyError:  # a snapshot without this key
                pass
        self.current_position = master['current_position']
        self.epoch = master['epoch']
        self.is_new_epoch = master['is_new_epoch']
        if not isinstance(serializer, Deserializer):
            self._order = master['order']  # what was saved; loading cannot change the order


def create_multi_node_iterator(actual_iterator: Any, communicator: Any,
                               rank_master: int = 0) -> Iterator:
    """An iterator whose batches are ``rank_master``'s, on every process (collective at every
    ``next``).

    For model parallelism, where processes holding different parts of a model must see the
    same examples. Only ``rank_master`` needs the dataset; the others may pass ``None``.

    Args:
        actual_iterator: The iterator to run on ``rank_master``.
        communicator: A communicator from ``create_communicator``.
        rank_master: The rank that iterates.

    Returns:
        The iterator (the master's wraps ``actual_iterator``).
    """
    if communicator.rank == rank_master:
        return _MultiNodeIteratorMaster(actual_iterator, communicator, rank_master)
    return _MultiNodeIteratorSlave(communicator, rank_master)


class _SynchronizedIterator(Iterator):
    """The actual iterator with a shuffling order sampler seeded the same everywhere."""

    def __init__(self, actual_iterator: Any, communicator: Any) -> None:
        from chainlet.iterators import ShuffleOrderSampler
        if not hasattr(actual_iterator, 'order_sampler'):
            raise ValueError(f'create_synchronized_iterator: argument actual_iterator: '
                             f'expected an iterator with an order_sampler, got '
                             f'{type(actual_iterator).__name__}')
        self.__dict__['actual_iterator'] = actual_iterator
        self.__dict__['communicator'] = communicator
        seed = numpy.random.randint(0, 2 ** 31 - 1) if communicator.rank == 0 else None
        seed = communicator.bcast_obj(seed, root=0)
        actual_iterator.order_sampler = ShuffleOrderSampler(numpy.random.RandomState(seed))
        actual_iterator.reset()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__dict__['actual_iterator'], name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.actual_iterator, name, value)

    def __next__(self) -> list:
        return self.actual_iterator.__next__()

    next = __next__

    def serialize(self, serializer: Any) -> None:
        self.actual_iterator.serialize(serializer)


def create_synchronized_iterator(actual_iterator: Any, communicator: Any) -> Iterator:
    """Make every process's ``actual_iterator`` shuffle in the same order (collective).

    Each process holds the whole dataset; the examples of each batch are then the same
    everywhere (e.g. for model parallelism), with no data sent.

    Args:
        actual_iterator: An iterator with an ``order_sampler`` (``SerialIterator``, ...).
        communicator: A communicator from ``create_communicator``.

    Returns:
        The wrapping iterator.
    """
    return _SynchronizedIterator(actual_iterator, communicator)
