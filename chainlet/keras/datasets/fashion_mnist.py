"""Fashion-MNIST: Zalando's article images (``keras.datasets.fashion_mnist``).

Labels: 0 T-shirt/top, 1 Trouser, 2 Pullover, 3 Dress, 4 Coat, 5 Sandal, 6 Shirt, 7 Sneaker,
8 Bag, 9 Ankle boot.

Example:
    >>> from chainlet.keras.datasets import fashion_mnist
    >>> callable(fashion_mnist.load_data)
    True
"""
from __future__ import annotations

import gzip
import os

import numpy

from chainlet.keras.datasets import _files

FILES = ['train-labels-idx1-ubyte.gz', 'train-images-idx3-ubyte.gz',
         't10k-labels-idx1-ubyte.gz', 't10k-images-idx3-ubyte.gz']


def _read(path: str, offset: int) -> numpy.ndarray:
    with gzip.open(path, 'rb') as f:
        return numpy.frombuffer(f.read(), numpy.uint8, offset=offset)


def load_data() -> tuple:
    """Load Fashion-MNIST (the four IDX files, cached in ``datasets/fashion-mnist``).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: ``uint8`` arrays of shapes
        ``(60000, 28, 28)``, ``(60000,)``, ``(10000, 28, 28)``, ``(10000,)``.
    """
    paths = [_files.get_file(os.path.join('fashion-mnist', name), _files.ORIGIN_FOLDER + name,
                             _files.HASHES[name], where='fashion_mnist.load_data')
             for name in FILES]
    y_train = _read(paths[0], 8)
    x_train = _read(paths[1], 16).reshape(len(y_train), 28, 28)
    y_test = _read(paths[2], 8)
    x_test = _read(paths[3], 16).reshape(len(y_test), 28, 28)
    return (x_train, y_train), (x_test, y_test)
