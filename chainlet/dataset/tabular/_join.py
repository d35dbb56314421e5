"""``a.join(b, ...)``: the columns of several equally long datasets, side by side.

Design: a column request is split by dataset (each key position belongs to exactly one
dataset, since keys are unique); each dataset is asked once for its distinct columns, and the
answers are put back in the order (and with the repetitions) requested.
"""
from __future__ import annotations

from typing import Any

from chainlet.dataset.tabular import tabular_dataset


class _Join(tabular_dataset.TabularDataset):

    def __init__(self, *datasets: tabular_dataset.TabularDataset) -> None:
        length = len(datasets[0])
        seen = set(datasets[0].keys)
        for dataset in datasets[1:]:
            if len(dataset) != length:
                raise ValueError(f'join: all datasets must have the same length; got '
                                 f'{length} and {len(dataset)}')
            twice = seen.intersection(dataset.keys)
            if twice:
                raise ValueError(f'join: keys must be unique among the datasets; '
                                 f'{sorted(twice)} appear more than once')
            seen.update(dataset.keys)
        self._datasets = datasets

    def __len__(self) -> int:
        return len(self._datasets[0])

    @property
    def keys(self) -> tuple:
        return tuple(key for dataset in self._datasets for key in dataset.keys)

    @property
    def mode(self) -> Any:
        # The first dataset that presents examples as tuple or dict decides; one-column
        # datasets (mode None) side by side become tuples.
        for dataset in self._datasets:
            if dataset.mode is not None:
                return dataset.mode
        return tuple

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        if key_indices is None:
            return tuple(col for dataset in self._datasets
                         for col in dataset.get_examples(indices, None))
        columns = {}
        offset = 0
        for dataset in self._datasets:
            n_keys = len(dataset.keys)
            wanted = tuple(dict.fromkeys(
                k - offset for k in key_indices if offset <= k < offset + n_keys))
            if wanted:
                answer = dataset.get_examples(indices, wanted)
                for k, col in zip(wanted, answer):
                    columns[offset + k] = col
            offset += n_keys
        return tuple(columns[k] for k in key_indices)

    def convert(self, data: Any) -> Any:
        return self._datasets[0].convert(data)
