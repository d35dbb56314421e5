"""``keras.datasets``: Keras's small datasets with Keras's ``load_data`` signatures.

Each loader downloads its files from Keras's origin into ``$KERAS_HOME/datasets``
(``~/.keras/datasets``), checks their digests, and reads them without unpickling arbitrary
objects. Offline, put the files there by hand (the error message says where).

Example:
    >>> from chainlet.keras import datasets
    >>> sorted(m for m in dir(datasets) if not m.startswith('_'))  # doctest: +NORMALIZE_WHITESPACE
    ['boston_housing', 'california_housing', 'cifar', 'cifar10', 'cifar100', 'fashion_mnist',
     'imdb', 'mnist', 'reuters']
"""
from chainlet.keras.datasets import (  # noqa: F401
    boston_housing, california_housing, cifar, cifar10, cifar100, fashion_mnist, imdb, mnist,
    reuters)
