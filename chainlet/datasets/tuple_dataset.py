"""``TupleDataset``: zip equal-length datasets into one whose examples are tuples."""
from __future__ import annotations

from typing import Any

from chainlet.dataset.dataset_mixin import batch_positions, check_index, is_batch_index


def _take(dataset: Any, positions: list[int]) -> Any:
    # Arrays (NumPy or CuPy) take a list of positions in one call; other sequences one by one.
    if hasattr(dataset, 'take') and hasattr(dataset, 'shape'):
        return dataset[positions] if positions else dataset[:0]
    return [dataset[i] for i in positions]


class TupleDataset:
    """A dataset of tuples: example ``i`` is ``(d[i] for d in datasets)``.

    Args:
        *datasets: One or more datasets (arrays, lists or dataset objects) of equal length.

    An int index returns one tuple; a slice, a list or an integer array of indices returns a
    list of tuples.

    Example:
        >>> import numpy as np
        >>> from chainlet.datasets import TupleDataset
        >>> ds = TupleDataset(np.arange(6).reshape(3, 2), np.array([0, 1, 0]))
        >>> len(ds)
        3
        >>> x, t = ds[1]
        >>> x, int(t)
        (array([2, 3]), 1)
        >>> [int(t) for _, t in ds[::2]]
        [0, 0]
    """

    def __init__(self, *datasets: Any) -> None:
        if not datasets:
            raise ValueError('TupleDataset: no datasets are given')
        lengths = [len(d) for d in datasets]
        if len(set(lengths)) != 1:
            raise ValueError(f'TupleDataset: all datasets must have the same length, got '
                             f'lengths {lengths}')
        self._datasets = datasets
        self._length = lengths[0]

    def __getitem__(self, index: Any) -> Any:
        if is_batch_index(index):
            positions = batch_positions('TupleDataset', index, self._length)
            columns = [_take(d, positions) for d in self._datasets]
            return [tuple(c[i] for c in columns) for i in range(len(positions))]
        i = check_index('TupleDataset', index, self._length)
        return tuple(d[i] for d in self._datasets)

    def __len__(self) -> int:
        return self._length

    @property
    def datasets(self) -> tuple:
        """The datasets given to the constructor, in order."""
        return self._datasets
