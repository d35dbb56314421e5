"""Boston housing prices (``keras.datasets.boston_housing``): 506 samples of 13 features,
targets in k$. (The data carry an ethically problematic feature; Keras discourages its use
outside teaching about such issues.)

Example:
    >>> from chainlet.keras.datasets import boston_housing
    >>> callable(boston_housing.load_data)
    True
"""
from __future__ import annotations

import numpy

from chainlet.keras.datasets import _files, _regression


def load_data(path: str = 'boston_housing.npz', test_split: float = 0.2,
              seed: int = 113) -> tuple:
    """Load Boston housing, shuffled with ``seed`` and split.

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: ``(n, 13)`` features and ``(n,)`` targets.
    """
    _regression.check_split(test_split, 'boston_housing.load_data')
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'boston_housing.npz',
                            _files.HASHES['boston_housing.npz'],
                            where='boston_housing.load_data')
    with numpy.load(local, allow_pickle=False) as f:
        x, y = f['x'], f['y']
    return _regression.split(x, y, test_split, seed)
