"""``with_converter(f)``: the same data, with ``f`` as the :meth:`convert` step."""
from __future__ import annotations

from typing import Any, Callable

from chainlet.dataset.tabular import tabular_dataset


class _WithConverter(tabular_dataset.TabularDataset):

    def __init__(self, dataset: tabular_dataset.TabularDataset,
                 converter: Callable[..., Any]) -> None:
        if not callable(converter):
            raise TypeError(f'with_converter: converter must be callable, got '
                            f'{type(converter).__name__}')
        self._dataset = dataset
        self._converter = converter

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self) -> tuple:
        return self._dataset.keys

    @property
    def mode(self) -> Any:
        return self._dataset.mode

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        # Spread the columns the way an example is spread for ``transform``.
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)
