"""The pure state transition shared by every iterator: which indices make the next batch.

Keeping it free of side effects lets the multiprocess iterator run it ahead of time for
prefetching while the delivered state (what ``epoch`` and ``serialize`` see) lags behind.
"""
from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import numpy


class IteratorState(NamedTuple):
    """Position in the epoch, completed epochs, whether the last batch ended one, the order."""
    current_position: int
    epoch: int
    is_new_epoch: bool
    order: Optional[numpy.ndarray]


def initial_state(order_sampler: Optional[Callable], dataset_len: int) -> IteratorState:
    """The state before the first batch (draws the first order when sampling)."""
    order = None
    if order_sampler is not None:
        order = numpy.asarray(order_sampler(numpy.arange(dataset_len), 0))
    return IteratorState(0, 0, False, order)


def next_state(state: IteratorState, batch_size: int, repeat: bool,
               order_sampler: Optional[Callable],
               dataset_len: int) -> tuple[IteratorState, Optional[numpy.ndarray]]:
    """Advance by one batch.

    Returns:
        ``(new_state, indices)``; ``indices`` is ``None`` when a non-repeating iterator is
        exhausted. With ``repeat`` a batch that crosses the end of the epoch continues with
        the next epoch's order (possibly several epochs for a tiny dataset).
    """
    position, epoch, _, order = state
    if not repeat and epoch > 0:
        return state, None
    n = dataset_len if order is None else len(order)
    if repeat and n == 0:
        raise ValueError('iterator: a repeating iterator needs a non-empty dataset')
    parts = []
    is_new_epoch = False
    rest = batch_size
    while True:
        start = position
        end = position + rest
        parts.append(numpy.arange(position, min(end, n)) if order is None
                     else order[position:end])
        if end < n:
            position = end
            break
        is_new_epoch = True
        epoch += 1
        rest = end - n
        position = 0
        if order_sampler is not None:
            new_order = numpy.asarray(order_sampler(order, start))
            if len(new_order) != n:
                raise ValueError(f'iterator: the order sampler returned an order of length '
                                 f'{len(new_order)} for an epoch of {n} examples')
            order = new_order
        if not repeat or rest == 0:
            break
    indices = numpy.concatenate(parts) if len(parts) > 1 else parts[0]
    return IteratorState(position, epoch, is_new_epoch, order), indices
