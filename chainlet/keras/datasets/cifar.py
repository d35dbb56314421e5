"""Reading CIFAR batches (shared by ``cifar10`` and ``cifar100``)."""
from __future__ import annotations

import numpy

from chainlet.keras.datasets import _files


def load_batch(fpath: str, label_key: str = 'labels') -> tuple:
    """``(data (N, 3, 32, 32) uint8, labels list)`` of one pickled CIFAR batch, read with the
    restricted unpickler."""
    d = _files.load_pickle(fpath)
    d = {k.decode('utf8') if isinstance(k, bytes) else k: v for k, v in d.items()}
    data = numpy.asarray(d['data'], dtype=numpy.uint8)
    return data.reshape(data.shape[0], 3, 32, 32), d[label_key]
