"""``SerialIterator``: minibatches drawn in the calling process."""
from __future__ import annotations

import numbers
from typing import Any, Callable, Optional

from chainlet.dataset.iterator import Iterator
from chainlet.iterators import _statemachine
from chainlet.iterators.order_samplers import ShuffleOrderSampler


def _add_note(exc: BaseException, note: str) -> None:
    # BaseException.add_note exists from Python 3.11; on 3.10 the note is kept in __notes__
    # (read by tests and by tracebacks of newer Pythons) without being printed.
    if hasattr(exc, 'add_note'):
        exc.add_note(note)
    else:
        # (setattr: Python 3.10's stubs do not declare BaseException.__notes__)
        setattr(exc, '__notes__', [*getattr(exc, '__notes__', []), note])


def _fetch(dataset: Any, indices: Any, owner: str) -> list:
    """``[dataset[i] for i in indices]``; an error gets a note naming the failing index."""
    examples = []
    for i in indices:
        try:
            examples.append(dataset[int(i)])
        except Exception as e:
            _add_note(e, f'{owner}: raised while loading dataset[{int(i)}]')
            raise
    return examples


def _check_batch_size(owner: str, batch_size: Any) -> int:
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral):
        raise TypeError(f'{owner}: batch_size must be an int, got {type(batch_size).__name__}')
    if batch_size <= 0:
        raise ValueError(f'{owner}: batch_size must be positive, got {batch_size}')
    return int(batch_size)


def _choose_order_sampler(owner: str, shuffle: Optional[bool],
                          order_sampler: Optional[Callable]) -> Optional[Callable]:
    if shuffle is not None and order_sampler is not None:
        raise ValueError(f'{owner}: give either shuffle or order_sampler, not both (leave '
                         f'shuffle=None to use a custom order_sampler)')
    if order_sampler is not None:
        if not callable(order_sampler):
            raise TypeError(f'{owner}: order_sampler must be callable, got '
                            f'{type(order_sampler).__name__}')
        return order_sampler
    if shuffle is None or shuffle:
        return ShuffleOrderSampler()
    return None


class _StatefulIterator(Iterator):
    """Epoch bookkeeping and serialization common to every chainlet iterator.

    Subclasses keep the delivered state in ``self._state`` (an ``IteratorState``) and
    ``self._previous_epoch_detail`` (``-1`` before the first batch).
    """

    dataset: Any
    batch_size: int
    order_sampler: Optional[Callable]
    _repeat: bool

    @property
    def repeat(self) -> bool:
        """Whether the iterator cycles over the dataset forever."""
        return self._repeat

    @property
    def current_position(self) -> int:
        """Position in the current epoch's order of the next example to read."""
        return self._state.current_position

    @property
    def epoch(self) -> int:
        """Number of completed sweeps over the dataset."""
        return self._state.epoch

    @property
    def is_new_epoch(self) -> bool:
        """True when the last batch completed an epoch."""
        return self._state.is_new_epoch

    @property
    def _epoch_size(self) -> int:
        order = self._state.order
        return len(self.dataset) if order is None else len(order)

    @property
    def epoch_detail(self) -> float:
        """Epochs as a float: ``epoch + current_position / len(dataset)``."""
        size = self._epoch_size
        return self.epoch + (self.current_position / size if size else 0.)

    @property
    def previous_epoch_detail(self) -> Optional[float]:
        """``epoch_detail`` before the last batch, or ``None`` before the first batch."""
        if self._previous_epoch_detail < 0:
            return None
        return self._previous_epoch_detail

    def _initial_state(self) -> _statemachine.IteratorState:
        return _statemachine.initial_state(self.order_sampler, len(self.dataset))

    def _load_state(self, state: _statemachine.IteratorState,
                    previous_epoch_detail: float) -> None:
        self._state = state
        self._previous_epoch_detail = previous_epoch_detail

    def serialize(self, serializer: Any) -> None:
        """Save or restore the position, epoch, ``is_new_epoch``, order and previous detail.

        A restored iterator yields exactly the batches the saved one would have yielded for
        the rest of the epoch (later epochs follow the order sampler's random state, which is
        not saved, as in Chainer).
        """
        state = self._state
        position = int(serializer('current_position', state.current_position))
        epoch = int(serializer('epoch', state.epoch))
        is_new_epoch = bool(serializer('is_new_epoch', state.is_new_epoch))
        order = state.order
        if order is not None:
            # Loading serializers fill arrays in place (possibly later) and return them.
            try:
                loaded = serializer('order', order)
            except KeyError:  # snapshots of Chainer < 4 call it '_order'
                loaded = serializer('_order', order)
            order = order if loaded is None else loaded
        try:
            previous = float(serializer('previous_epoch_detail', self._previous_epoch_detail))
        except KeyError:
            # A snapshot without the key (an older format): estimate it from the position.
            size = len(self.dataset) if order is None else len(order)
            previous = epoch + (position - self.batch_size) / size if size else -1.
            previous = max(previous, 0.) if epoch + position > 0 else -1.
        self._load_state(_statemachine.IteratorState(position, epoch, is_new_epoch, order),
                         previous)


class SerialIterator(_StatefulIterator):
    """Iterate over a dataset in minibatches, in this process.

    Each ``next()`` returns a list of ``batch_size`` examples. With ``repeat=True`` the
    iterator never stops, and a batch that crosses the end of an epoch is completed with the
    first examples of the next epoch (in its new order); with ``repeat=False`` the last batch
    of the single epoch may be shorter and the following ``next()`` raises ``StopIteration``.

    Args:
        dataset: Any object with ``__len__`` and ``__getitem__``.
        batch_size: Number of examples per batch.
        repeat: Cycle over the dataset forever.
        shuffle: Shuffle the order every epoch. ``None`` means ``True`` unless an
            ``order_sampler`` is given.
        order_sampler: A callable ``(current_order, current_position) -> new_order``, e.g.
            ``ShuffleOrderSampler(numpy.random.RandomState(seed))`` for a seeded order.

    Example:
        >>> from chainlet.iterators import SerialIterator
        >>> it = SerialIterator(list(range(5)), 2, repeat=False, shuffle=False)
        >>> next(it), next(it), next(it)
        ([0, 1], [2, 3], [4])
        >>> it.epoch, it.is_new_epoch, it.epoch_detail
        (1, True, 1.0)
    """

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: Optional[bool] = None, order_sampler: Optional[Callable] = None) -> None:
        self.dataset = dataset
        self.batch_size = _check_batch_size('SerialIterator', batch_size)
        self._repeat = bool(repeat)
        self._shuffle = shuffle
        self.order_sampler = _choose_order_sampler('SerialIterator', shuffle, order_sampler)
        self.reset()

    def __next__(self) -> list:
        state, indices = _statemachine.next_state(self._state, self.batch_size, self._repeat,
                                                  self.order_sampler, len(self.dataset))
        if indices is None or (len(indices) == 0 and not self._repeat):
            self._state = state
            raise StopIteration
        self._previous_epoch_detail = self.epoch_detail
        self._state = state
        return _fetch(self.dataset, indices, 'SerialIterator')

    def reset(self) -> None:
        """Go back to the start of epoch 0 (drawing a new order when shuffling)."""
        self._state = self._initial_state()
        self._previous_epoch_detail = -1.
