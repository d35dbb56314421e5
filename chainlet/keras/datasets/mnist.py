"""MNIST handwritten digits (``keras.datasets.mnist``).

Example:
    >>> from chainlet.keras.datasets import mnist
    >>> callable(mnist.load_data)
    True
"""
from __future__ import annotations

import numpy

from chainlet.keras.datasets import _files


def load_data(path: str = 'mnist.npz') -> tuple:
    """Load MNIST: 60,000 training and 10,000 test images of 28x28 gray pixels.

    Args:
        path: File name in the cache (``~/.keras/datasets``, see ``KERAS_HOME``).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: ``uint8`` arrays of shapes
        ``(60000, 28, 28)``, ``(60000,)``, ``(10000, 28, 28)``, ``(10000,)``.
    """
    local = _files.get_file(path, _files.ORIGIN_FOLDER + 'mnist.npz',
                            _files.HASHES['mnist.npz'], where='mnist.load_data')
    with numpy.load(local, allow_pickle=False) as f:
        return (f['x_train'], f['y_train']), (f['x_test'], f['y_test'])
