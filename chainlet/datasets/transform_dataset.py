"""``TransformDataset``: apply a function to every example, lazily."""
from __future__ import annotations

from typing import Any, Callable

from chainlet.dataset.dataset_mixin import DatasetMixin


class TransformDataset(DatasetMixin):
    """A dataset whose example ``i`` is ``transform(dataset[i])``, computed on access.

    Use it for data augmentation: the transform runs again every time an example is read,
    so a random transform gives a new variant each epoch.

    Args:
        dataset: The underlying dataset.
        transform: A function of one example returning the transformed example.

    Example:
        >>> from chainlet.datasets import TransformDataset
        >>> ds = TransformDataset([1, 2, 3], lambda x: x * 10)
        >>> ds[0], ds[1:], len(ds)
        (10, [20, 30], 3)
    """

    def __init__(self, dataset: Any, transform: Callable[[Any], Any]) -> None:
        if not callable(transform):
            raise TypeError(f'TransformDataset: transform must be callable, got '
                            f'{type(transform).__name__}')
        self._dataset = dataset
        self._transform = transform

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        return self._transform(self._dataset[i])
