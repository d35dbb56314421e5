"""Dataset iterators: minibatches with epoch bookkeeping, shuffling and resumable state.

Example:
    >>> import numpy as np
    >>> from chainlet.iterators import SerialIterator, ShuffleOrderSampler
    >>> sampler = ShuffleOrderSampler(np.random.RandomState(0))
    >>> it = SerialIterator(list(range(10)), 4, order_sampler=sampler)
    >>> batch = next(it)
    >>> len(batch), it.epoch_detail
    (4, 0.4)
"""
from __future__ import annotations

from chainlet.iterators.multiprocess_iterator import MultiprocessIterator  # noqa: F401
from chainlet.iterators.multiprocess_iterator import TimeoutWarning  # noqa: F401
from chainlet.iterators.multithread_iterator import MultithreadIterator  # noqa: F401
from chainlet.iterators.order_samplers import OrderSampler, ShuffleOrderSampler  # noqa: F401
from chainlet.iterators.serial_iterator import SerialIterator  # noqa: F401
