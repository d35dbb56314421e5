"""``astuple()`` / ``asdict()``: the same columns, presented as tuples or as dicts."""
from __future__ import annotations

from typing import Any

from chainlet.dataset.tabular import tabular_dataset


class _AsMode(tabular_dataset.TabularDataset):
    """A view that forwards everything to its dataset and only fixes :attr:`mode`."""

    _mode: Any = None

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self._dataset = dataset

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple:
        return self._dataset.keys

    @property
    def mode(self) -> Any:
        return self._mode

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self._dataset.convert(data)


class _Astuple(_AsMode):
    _mode = tuple


class _Asdict(_AsMode):
    _mode = dict
