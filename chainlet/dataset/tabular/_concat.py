"""``a.concat(b, ...)``: the rows of several datasets with the same keys, one after another.

Design: a row request is split into one request per dataset, in the dataset's own row
numbers. A slice stays a slice (each dataset gets the part of the arithmetic progression that
falls in its rows, with bounds written the way ``slice.indices`` would write them), so that a
dataset reading blocks keeps doing so. When only one dataset is involved its answer is
returned as it is (arrays stay arrays); otherwise the pieces are merged into lists.
"""
from __future__ import annotations

import bisect
import itertools
from typing import Any

from chainlet.dataset.tabular import tabular_dataset


class _Concat(tabular_dataset.TabularDataset):

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        keys = datasets[0].keys
        for dataset in datasets[1:]:
            if dataset.keys != keys:
                raise ValueError(f'concat: all datasets must have the same keys in the same '
                                 f'order; got {keys} and {dataset.keys}')
        self._datasets = datasets
        self._offsets = [0] + list(itertools.accumulate(len(d) for d in datasets))

    def __len__(self) -> int:
        return self._offsets[-1]

    @property
    def keys(self) -> tuple:
        return self._datasets[0].keys

    @property
    def mode(self) -> Any:
        return self._datasets[0].mode

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        n_cols = len(self.keys) if key_indices is None else len(key_indices)
        if indices is None:
            parts = [dataset.get_examples(None, key_indices) for dataset in self._datasets]
        elif isinstance(indices, slice):
            parts = [dataset.get_examples(sub, key_indices)
                     for dataset, sub in self._split_slice(indices)]
        else:
            return self._get_listed(list(indices), key_indices, n_cols)
        if len(parts) == 1:
            return parts[0]
        return tuple([value for part in parts for value in part[col]] for col in range(n_cols))

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)

    def _split_slice(self, indices: slice) -> list:
        """(dataset, slice in its rows) for each dataset the slice touches, in output order."""
        start, stop, step = indices.indices(len(self))
        parts = []
        for dataset, offset in zip(self._datasets, self._offsets):
            n = len(dataset)
            sub_start, sub_stop = start - offset, stop - offset
            if step > 0:
                if sub_start < 0:
                    # First row of the progression at or after this dataset's row 0.
                    sub_start %= step
                sub_stop = min(sub_stop, n)
            else:
                if sub_start >= n:
                    # Last row of the progression at or before this dataset's last row.
                    sub_start = (n - 1) - (n - 1 - sub_start) % -step
                sub_stop = max(sub_stop, -1)
            if len(range(sub_start, sub_stop, step)) == 0:
                continue
            parts.append((dataset, slice(sub_start,
                                         None if sub_stop < 0 else sub_stop, step)))
        if step < 0:
            parts.reverse()
        return parts

    def _get_listed(self, indices: list, key_indices: Any, n_cols: int) -> tuple:
        total = len(self)
        by_dataset: dict = {}
        where = []
        for index in indices:
            if not 0 <= index < total:
                raise IndexError(f'concat: row {index} is out of bounds for a dataset of '
                                 f'length {total}')
            d = bisect.bisect_right(self._offsets, index) - 1
            rows = by_dataset.setdefault(d, [])
            where.append((d, len(rows)))
            rows.append(index - self._offsets[d])
        answers = {d: self._datasets[d].get_examples(rows, key_indices)
                   for d, rows in by_dataset.items()}
        if len(answers) == 0:
            return tuple([] for _ in range(n_cols))
        if len(answers) == 1:
            return next(iter(answers.values()))
        return tuple([answers[d][col][p] for d, p in where] for col in range(n_cols))
