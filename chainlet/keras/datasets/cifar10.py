"""CIFAR-10 small color images in 10 classes (``keras.datasets.cifar10``).

Labels: 0 airplane, 1 automobile, 2 bird, 3 cat, 4 deer, 5 dog, 6 frog, 7 horse, 8 ship,
9 truck.

Example:
    >>> from chainlet.keras.datasets import cifar10
    >>> callable(cifar10.load_data)
    True
"""
from __future__ import annotations

import os

import numpy

from chainlet.keras.datasets import _files
from chainlet.keras.datasets.cifar import load_batch


def load_data() -> tuple:
    """Load CIFAR-10 (the Python-pickle archive, extracted to
    ``datasets/cifar-10-batches-py``).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: ``uint8`` images ``(50000, 32, 32, 3)`` and
        ``(10000, 32, 32, 3)`` (channels last), ``uint8`` labels ``(50000, 1)``, ``(10000, 1)``.
    """
    path = _files.get_extracted('cifar-10-python.tar.gz',
                                _files.CIFAR_ORIGIN_FOLDER + 'cifar-10-python.tar.gz',
                                'cifar-10-batches-py', 'cifar-10-batches-py',
                                where='cifar10.load_data')
    xs, ys = [], []
    for i in range(1, 6):
        x, y = load_batch(os.path.join(path, f'data_batch_{i}'))
        xs.append(x)
        ys.append(numpy.asarray(y, numpy.uint8))
    x_test, y_test = load_batch(os.path.join(path, 'test_batch'))
    x_train = numpy.concatenate(xs).transpose(0, 2, 3, 1)
    y_train = numpy.concatenate(ys).reshape(-1, 1)
    return (x_train, y_train), (x_test.transpose(0, 2, 3, 1),
                                numpy.asarray(y_test, numpy.uint8).reshape(-1, 1))
