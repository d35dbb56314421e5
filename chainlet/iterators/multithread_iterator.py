"""``MultithreadIterator``: examples loaded by a pool of threads, batches prefetched."""
from __future__ import annotations

import multiprocessing.pool
from typing import Any, Callable, Optional

from chainlet.iterators.multiprocess_iterator import _PoolIterator
from chainlet.iterators.serial_iterator import _fetch as fetch_examples


def _fetch(dataset: Any, indices: list[int]) -> list:
    return fetch_examples(dataset, indices, 'MultithreadIterator')


class MultithreadIterator(_PoolIterator):
    """Iterate over a dataset in minibatches loaded by worker threads.

    Threads suit datasets whose ``__getitem__`` waits on I/O or runs code that releases the
    GIL (NumPy, image decoding); nothing is pickled and no process is started. Batches,
    epochs and ``serialize`` are those of :class:`SerialIterator`.

    Args:
        dataset: The dataset.
        batch_size: Number of examples per batch.
        repeat: Cycle over the dataset forever.
        shuffle: Shuffle every epoch (``None``: ``True`` unless ``order_sampler`` is given).
        n_threads: Number of worker threads.
        order_sampler: ``(current_order, current_position) -> new_order``.

    Example:
        >>> from chainlet.iterators import MultithreadIterator
        >>> with MultithreadIterator(list(range(5)), 2, repeat=False, shuffle=False,
        ...                          n_threads=2) as it:
        ...     list(it)
        [[0, 1], [2, 3], [4]]
    """

    _owner = 'MultithreadIterator'
    _restartable = True

    def __init__(self, dataset: Any, batch_size: int, repeat: bool = True,
                 shuffle: Optional[bool] = None, n_threads: int = 1,
                 order_sampler: Optional[Callable] = None) -> None:
        self._setup(dataset, batch_size, repeat, shuffle, n_threads, 1, order_sampler, None)

    @property
    def n_threads(self) -> int:
        """Number of worker threads."""
        return self._n_workers

    def _make_pool(self) -> multiprocessing.pool.ThreadPool:
        return multiprocessing.pool.ThreadPool(self._n_workers)

    def _submit(self, pool: Any, chunks: list[list[int]]) -> Any:
        dataset = self.dataset
        return pool.starmap_async(_fetch, [(dataset, c) for c in chunks], chunksize=1)
