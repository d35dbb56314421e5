"""California housing prices (``keras.datasets.california_housing``): 20,640 districts of the
1990 census, 8 features, median house values in dollars.

Example:
    >>> from chainlet.keras.datasets import california_housing
    >>> callable(california_housing.load_data)
    True
"""
from __future__ import annotations

import numpy

from chainlet.keras.datasets import _files, _regression


def load_data(version: str = 'large', path: str = 'california_housing.npz',
              test_split: float = 0.2, seed: int = 113) -> tuple:
    """Load California housing, shuffled with ``seed`` and split.

    Args:
        version: ``'large'`` (all 20,640 samples) or ``'small'`` (the first 600).
        path: File name in the cache.
        test_split: Fraction for the test set.
        seed: Seed of the shuffle.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: ``(n, 8)`` features and ``(n,)`` targets.
    """
    _regression.check_split(test_split, 'california_housing.load_data')
    if version not in ('small', 'large'):
        raise ValueError(f"california_housing.load_data: argument version: expected 'small' "
                         f"or 'large', got {version!r}")
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'california_housing.npz',
                            _files.HASHES['california_housing.npz'],
                            where='california_housing.load_data')
    with numpy.load(local, allow_pickle=False) as f:
        x, y = f['x'], f['y']
    if version == 'small':
        x, y = x[:600], y[:600]
    return _regression.split(x, y, test_split, seed)
