"""``ConcatenatedDataset``: several datasets one after the other."""
from __future__ import annotations

import bisect
import itertools
from typing import Any

from chainlet.dataset.dataset_mixin import DatasetMixin


class ConcatenatedDataset(DatasetMixin):
    """The concatenation of datasets: the examples of the first, then of the second, ...

    Args:
        *datasets: Datasets to concatenate (possibly empty).

    Example:
        >>> from chainlet.datasets import ConcatenatedDataset
        >>> ds = ConcatenatedDataset([0, 1], [], [2, 3, 4])
        >>> len(ds), ds[2], ds[-1], ds[1:4]
        (5, 2, 4, [1, 2, 3])
    """

    def __init__(self, *datasets: Any) -> None:
        self._datasets = datasets
        # _ends[k] is the number of examples in datasets[:k + 1].
        self._ends = list(itertools.accumulate(len(d) for d in datasets))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def get_example(self, i: int) -> Any:
        k = bisect.bisect_right(self._ends, i)
        start = self._ends[k - 1] if k else 0
        return self._datasets[k][i - start]
