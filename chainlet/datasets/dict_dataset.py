"""``DictDataset``: combine equal-length datasets into one whose examples are dicts."""
from __future__ import annotations

from typing import Any

from chainlet.dataset.dataset_mixin import batch_positions, check_index, is_batch_index
from chainlet.datasets.tuple_dataset import _take


class DictDataset:
    """A dataset of dicts: example ``i`` is ``{key: d[i] for key, d in datasets.items()}``.

    Args:
        **datasets: One or more named datasets of equal length.

    Example:
        >>> from chainlet.datasets import DictDataset
        >>> ds = DictDataset(x=['a', 'b'], t=[0, 1])
        >>> ds[1]
        {'x': 'b', 't': 1}
        >>> len(ds[:]), ds[:][0]['t']
        (2, 0)
    """

    def __init__(self, **datasets: Any) -> None:
        if not datasets:
            raise ValueError('DictDataset: no datasets are given')
        lengths = {key: len(d) for key, d in datasets.items()}
        if len(set(lengths.values())) != 1:
            raise ValueError(f'DictDataset: all datasets must have the same length, got '
                             f'{lengths}')
        self._datasets = datasets
        self._length = next(iter(lengths.values()))

    def __getitem__(self, index: Any) -> Any:
        if is_batch_index(index):
            positions = batch_positions('DictDataset', index, self._length)
            columns = {k: _take(d, positions) for k, d in self._datasets.items()}
            return [{k: c[i] for k, c in columns.items()} for i in range(len(positions))]
        i = check_index('DictDataset', index, self._length)
        return {k: d[i] for k, d in self._datasets.items()}

    def __len__(self) -> int:
        return self._length
