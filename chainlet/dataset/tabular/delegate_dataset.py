"""``DelegateDataset``: a base class for datasets that are another tabular dataset inside."""
from __future__ import annotations

from typing import Any

from chainlet.dataset.tabular import tabular_dataset


class DelegateDataset(tabular_dataset.TabularDataset):
    """A :class:`~chainlet.dataset.TabularDataset` that forwards everything to ``dataset``.

    Subclass it to give a composed dataset (for instance one built with
    :func:`~chainlet.dataset.tabular.from_data`) a class of its own.

    Args:
        dataset: The tabular dataset to forward to; kept as :attr:`dataset`.

    Example:
        >>> from chainlet.dataset import tabular
        >>> class Squares(tabular.DelegateDataset):
        ...     def __init__(self, n):
        ...         super().__init__(tabular.from_data(
        ...             (('x', list(range(n))), ('y', lambda i: i * i))))
        >>> ds = Squares(5)
        >>> ds.keys, ds[3]
        (('x', 'y'), (3, 9))
    """

    def __init__(self, dataset: tabular_dataset.TabularDataset) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    @property
    def keys(self) -> tuple:
        return self.dataset.keys

    @property
    def mode(self) -> Any:
        return self.dataset.mode

    def get_examples(self, indices: Any, key_indices: Any) -> tuple:
        return self.dataset.get_examples(indices, key_indices)

    def convert(self, data: Any) -> Any:
        return self.dataset.convert(data)
