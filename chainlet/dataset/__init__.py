"""Dataset plumbing: ``DatasetMixin``, the ``Iterator`` interface, batch conversion, caching.

``chainlet.dataset`` holds what dataset and iterator implementations build on; the ready-made
datasets live in :mod:`chainlet.datasets` and the iterators in :mod:`chainlet.iterators`.

Example:
    >>> import numpy as np
    >>> from chainlet import dataset
    >>> dataset.concat_examples([np.zeros(3), np.ones(3)]).shape
    (2, 3)
"""
from __future__ import annotations

from chainlet.dataset import convert  # noqa: F401
from chainlet.dataset import download  # noqa: F401
from chainlet.dataset.convert import concat_examples, to_device  # noqa: F401
from chainlet.dataset.convert import Converter, converter  # noqa: F401
from chainlet.dataset.convert import ConcatWithAsyncTransfer  # noqa: F401
from chainlet.dataset.dataset_mixin import DatasetMixin  # noqa: F401
from chainlet.dataset.download import cache_or_load_file, cached_download  # noqa: F401
from chainlet.dataset.download import ChecksumMismatchError  # noqa: F401
from chainlet.dataset.download import get_dataset_directory, get_dataset_root  # noqa: F401
from chainlet.dataset.download import set_dataset_root  # noqa: F401
from chainlet.dataset.iterator import Iterator  # noqa: F401
from chainlet.dataset import tabular  # noqa: F401
from chainlet.dataset.tabular.tabular_dataset import TabularDataset  # noqa: F401
