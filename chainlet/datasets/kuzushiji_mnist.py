"""Kuzushiji-MNIST (KMNIST): 28x28 grey images of ten cursive Japanese hiragana.

The files have MNIST's IDX format and split, so the loader is :func:`get_mnist`'s with other
mirrors (``CHAINLET_KUZUSHIJI_MNIST_URL`` replaces them, e.g. ``file:///data/kmnist/``); the
downloads are cached under ``<dataset root>/kuzushiji-mnist``. No digest is published for them,
so they are not checked against one.
"""
from __future__ import annotations

from typing import Any

import numpy

from chainlet.datasets import _loader
from chainlet.datasets import mnist

KUZUSHIJI_MNIST_URLS = ['http://codh.rois.ac.jp/kmnist/dataset/kmnist/']

_LABELS = (('o', '\u304a'), ('ki', '\u304d'), ('su', '\u3059'), ('tsu', '\u3064'),
           ('na', '\u306a'), ('ha', '\u306f'), ('ma', '\u307e'), ('ya', '\u3084'),
           ('re', '\u308c'), ('wo', '\u3092'))


def get_kuzushiji_mnist_labels() -> list[tuple[str, str]]:
    """The ten classes, indexed by label: ``(romanisation, hiragana)`` pairs.

    Example:
        >>> from chainlet.datasets import get_kuzushiji_mnist_labels
        >>> get_kuzushiji_mnist_labels()[1]
        ('ki', 'き')
    """
    return list(_LABELS)


def get_kuzushiji_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                        dtype: Any = None, label_dtype: Any = numpy.int32,
                        rgb_format: bool = False) -> tuple:
    """Return Kuzushiji-MNIST as ``(train, test)`` (60,000 and 10,000 images).

    Same arguments and results as :func:`~chainlet.datasets.get_mnist`.

    Args:
        withlabel: Return ``(image, label)`` tuples, or the image arrays alone.
        ndim: 1 gives ``(784,)``, 2 gives ``(28, 28)``, 3 gives ``(1, 28, 28)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Floating type of the images (``None``: ``chainlet.config.dtype`` or float32).
        label_dtype: Type of the labels.
        rgb_format: With ``ndim=3``, repeat the grey channel three times.

    Returns:
        ``(train, test)``.
    """
    urls = _loader.base_urls('CHAINLET_KUZUSHIJI_MNIST_URL', KUZUSHIJI_MNIST_URLS)
    return mnist._get('get_kuzushiji_mnist', 'kuzushiji-mnist', urls, {}, withlabel, ndim,
                      scale, dtype, label_dtype, rgb_format)
