"""``SubDataset`` and the helpers that split a dataset into parts."""
from __future__ import annotations

import numbers
import warnings
from typing import Any, Optional

import numpy

from chainlet.dataset.dataset_mixin import DatasetMixin


def _check_int(owner: str, name: str, value: Any) -> int:
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f'{owner}: {name} must be an int, got {type(value).__name__}')
    return int(value)


class SubDataset(DatasetMixin):
    """A view of the examples ``start .. finish - 1`` of a dataset, optionally reordered.

    Example ``i`` of the view is ``dataset[order[start + i]]`` (``dataset[start + i]`` without
    an ``order``). Nothing is copied.

    Args:
        dataset: The base dataset.
        start: First position (inclusive) in the (reordered) base dataset.
        finish: Last position (exclusive).
        order: A permutation of ``range(len(dataset))`` (or any integer array of that
            length) mapping positions to base indices; ``None`` keeps the base order.
        subset_size: If given, the view holds only the first ``subset_size`` examples of
            ``start .. finish - 1`` (``0 <= subset_size <= finish - start``).

    Example:
        >>> from chainlet.datasets import SubDataset
        >>> sub = SubDataset(list('abcdef'), 1, 4, order=[5, 4, 3, 2, 1, 0])
        >>> len(sub), sub[0], sub[:]
        (3, 'e', ['e', 'd', 'c'])
    """

    def __init__(self, dataset: Any, start: int, finish: int, order: Any = None,
                 subset_size: int | None = None) -> None:
        start = _check_int('SubDataset', 'start', start)
        finish = _check_int('SubDataset', 'finish', finish)
        n = len(dataset)
        if not 0 <= start <= finish <= n:
            raise ValueError(f'SubDataset: expected 0 <= start <= finish <= len(dataset) = {n}, '
                             f'got start={start}, finish={finish}')
        if order is not None:
            order = numpy.asarray(order)
            if order.ndim != 1 or len(order) != n:
                raise ValueError(f'SubDataset: order must be a 1-d array of the dataset length '
                                 f'{n}, got shape {order.shape}')
            if order.dtype.kind not in 'iu':
                raise TypeError(f'SubDataset: order must hold integers, got {order.dtype}')
        size = finish - start
        if subset_size is not None:
            subset_size = _check_int('SubDataset', 'subset_size', subset_size)
            if not 0 <= subset_size <= size:
                raise ValueError(f'SubDataset: subset_size must be in [0, finish - start = '
                                 f'{size}], got {subset_size}')
            size = subset_size
        self._dataset = dataset
        self._start = start
        self._finish = start + size
        self._size = size
        self._order = order

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        index = self._start + i
        if self._order is not None:
            index = int(self._order[index])
        return self._dataset[index]


def split_dataset(dataset: Any, split_at: int, order: Any = None) -> tuple[SubDataset, SubDataset]:
    """Split a dataset into two parts at position ``split_at``.

    Args:
        dataset: The dataset to split.
        split_at: Length of the first part, ``0 <= split_at <= len(dataset)``.
        order: Optional permutation applied before splitting (see :class:`SubDataset`).

    Returns:
        ``(first, second)``: the examples ``[0, split_at)`` and ``[split_at, len)``.

    Example:
        >>> from chainlet.datasets import split_dataset
        >>> a, b = split_dataset(list(range(5)), 2)
        >>> a[:], b[:]
        ([0, 1], [2, 3, 4])
    """
    split_at = _check_int('split_dataset', 'split_at', split_at)
    n = len(dataset)
    if not 0 <= split_at <= n:
        raise ValueError(f'split_dataset: split_at must be in [0, len(dataset) = {n}], '
                         f'got {split_at}')
    return SubDataset(dataset, 0, split_at, order), SubDataset(dataset, split_at, n, order)


def split_dataset_random(dataset: Any, first_size: int,
                         seed: int | None = None) -> tuple[SubDataset, SubDataset]:
    """Split a dataset into two parts of random examples.

    Args:
        dataset: The dataset to split.
        first_size: Length of the first part.
        seed: Seed of the ``numpy.random.RandomState`` that draws the permutation; ``None``
            draws a fresh one each call.

    Returns:
        ``(first, second)``; together they hold every example exactly once.

    Example:
        >>> from chainlet.datasets import split_dataset_random
        >>> a, b = split_dataset_random(list(range(10)), 7, seed=0)
        >>> len(a), len(b), sorted(a[:] + b[:]) == list(range(10))
        (7, 3, True)
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset(dataset, first_size, order)


def split_dataset_n(dataset: Any, n: int, order: Any = None) -> list[SubDataset]:
    """Split a dataset into ``n`` parts of ``len(dataset) // n`` examples each.

    As in Chainer, all parts have the same length and the ``len(dataset) % n`` examples at the
    end of ``order`` are left out: equal parts are what data-parallel workers need, since each
    must run the same number of iterations.

    Args:
        dataset: The dataset to split.
        n: Number of parts, ``1 <= n``.
        order: Optional permutation applied before splitting.

    Returns:
        A list of ``n`` :class:`SubDataset` of equal length.

    Example:
        >>> from chainlet.datasets import split_dataset_n
        >>> [p[:] for p in split_dataset_n(list(range(7)), 3)]
        [[0, 1], [2, 3], [4, 5]]
    """
    n = _check_int('split_dataset_n', 'n', n)
    if n < 1:
        raise ValueError(f'split_dataset_n: n must be at least 1, got {n}')
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n_random(dataset: Any, n: int, seed: int | None = None) -> list[SubDataset]:
    """Split a dataset into ``n`` parts of random examples (see :func:`split_dataset_n`).

    Args:
        dataset: The dataset to split.
        n: Number of parts.
        seed: Seed of the ``numpy.random.RandomState`` that draws the permutation.

    Returns:
        A list of ``n`` :class:`SubDataset`.

    Example:
        >>> from chainlet.datasets import split_dataset_n_random
        >>> [len(p) for p in split_dataset_n_random(list(range(10)), 3, seed=1)]
        [3, 3, 3]
    """
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return split_dataset_n(dataset, n, order)


def _n_folds(func: str, n_folds: Any, kwargs: dict) -> int:
    """``n_folds``, or Chainer's deprecated keyword ``n_fold``; checked."""
    if 'n_fold' in kwargs:
        warnings.warn(f'{func}: the argument n_fold is deprecated; use n_folds',
                      DeprecationWarning, stacklevel=3)
        n_folds = kwargs.pop('n_fold')
    if kwargs:
        raise TypeError(f'{func}: unexpected keyword arguments {sorted(kwargs)}')
    if n_folds is None:
        raise TypeError(f'{func}: missing the argument n_folds')
    n_folds = _check_int(func, 'n_folds', n_folds)
    if n_folds < 1:
        raise ValueError(f'{func}: n_folds must be at least 1, got {n_folds}')
    return n_folds


def get_cross_validation_datasets(dataset: Any, n_folds: Optional[int] = None, order: Any = None,
                                  **kwargs: Any) -> list[tuple[SubDataset, SubDataset]]:
    """Make ``n_folds`` ``(train, test)`` splits for k-fold cross validation (as Chainer).

    The test parts do not overlap and together cover the dataset; their sizes differ by at
    most one. Fold ``j`` tests on the ``j``-th block counted from the end of ``order``, and
    its training part starts right after that block, wrapping around.

    Args:
        dataset: The dataset to split.
        n_folds: Number of folds, ``1 <= n_folds`` (``n_fold=`` is Chainer's deprecated
            spelling, accepted with a ``DeprecationWarning``).
        order: Optional permutation applied before splitting (see :class:`SubDataset`).

    Returns:
        A list of ``n_folds`` ``(train, test)`` pairs of :class:`SubDataset`.

    Example:
        >>> from chainlet.datasets import get_cross_validation_datasets
        >>> [(tr[:], te[:]) for tr, te in get_cross_validation_datasets(list(range(5)), 2)]
        [([0, 1], [2, 3, 4]), ([2, 3, 4], [0, 1])]
    """
    n_fold = _n_folds('get_cross_validation_datasets', n_folds, kwargs)
    total = len(dataset)
    order = numpy.arange(total) if order is None else numpy.array(order)
    borders = [total * i // n_fold for i in range(n_fold + 1)]
    splits = []
    for i in reversed(range(n_fold)):
        test_size = borders[i + 1] - borders[i]
        splits.append(split_dataset(dataset, total - test_size, order))
        order = numpy.roll(order, test_size)
    return splits


def get_cross_validation_datasets_random(dataset: Any, n_folds: Optional[int] = None,
                                         seed: int | None = None, **kwargs: Any
                                         ) -> list[tuple[SubDataset, SubDataset]]:
    """:func:`get_cross_validation_datasets` over a random permutation.

    Args:
        dataset: The dataset to split.
        n_folds: Number of folds (``n_fold=`` is accepted, deprecated, as in Chainer).
        seed: Seed of the ``numpy.random.RandomState`` that draws the permutation.

    Returns:
        A list of ``n_folds`` ``(train, test)`` pairs of :class:`SubDataset`.
    """
    n_folds = _n_folds('get_cross_validation_datasets_random', n_folds, kwargs)
    order = numpy.random.RandomState(seed).permutation(len(dataset))
    return get_cross_validation_datasets(dataset, n_folds, order)
