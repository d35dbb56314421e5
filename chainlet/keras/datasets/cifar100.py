"""CIFAR-100 small color images in 100 classes, grouped into 20 superclasses
(``keras.datasets.cifar100``).

Example:
    >>> from chainlet.keras.datasets import cifar100
    >>> callable(cifar100.load_data)
    True
"""
from __future__ import annotations

import os

import numpy

from chainlet.keras.datasets import _files
from chainlet.keras.datasets.cifar import load_batch


def load_data(label_mode: str = 'fine') -> tuple:
    """Load CIFAR-100 (extracted to ``datasets/cifar-100-python-target``).

    Args:
        label_mode: ``'fine'`` (100 classes) or ``'coarse'`` (20 superclasses).

    Returns:
        ``(x_train, y_train), (x_test, y_test)``: ``uint8`` images ``(50000, 32, 32, 3)`` and
        ``(10000, 32, 32, 3)``, labels ``(50000, 1)`` and ``(10000, 1)``.
    """
    if label_mode not in ('fine', 'coarse'):
        raise ValueError(f"cifar100.load_data: argument label_mode: expected 'fine' or "
                         f"'coarse', got {label_mode!r}")
    root = _files.get_extracted('cifar-100-python.tar.gz',
                                _files.CIFAR_ORIGIN_FOLDER + 'cifar-100-python.tar.gz',
                                'cifar-100-python-target', None, where='cifar100.load_data')
    path = os.path.join(root, 'cifar-100-python')
    key = label_mode + '_labels'
    x_train, y_train = load_batch(os.path.join(path, 'train'), label_key=key)
    x_test, y_test = load_batch(os.path.join(path, 'test'), label_key=key)
    return ((x_train.transpose(0, 2, 3, 1), numpy.asarray(y_train, numpy.uint8).reshape(-1, 1)),
            (x_test.transpose(0, 2, 3, 1), numpy.asarray(y_test, numpy.uint8).reshape(-1, 1)))
