"""Ready-made datasets: containers, views and splits, and loaders of public datasets.

Example:
    >>> import numpy as np
    >>> from chainlet import datasets
    >>> ds = datasets.TupleDataset(np.arange(10.0), np.arange(10) % 2)
    >>> train, valid = datasets.split_dataset_random(ds, 8, seed=0)
    >>> len(train), len(valid)
    (8, 2)
"""
from __future__ import annotations

from chainlet.dataset.dataset_mixin import DatasetMixin  # noqa: F401
from chainlet.datasets.cifar import get_cifar10, get_cifar100  # noqa: F401
from chainlet.datasets.concatenated_dataset import ConcatenatedDataset  # noqa: F401
from chainlet.datasets.dict_dataset import DictDataset  # noqa: F401
from chainlet.datasets.digits import get_digits  # noqa: F401
from chainlet.datasets.image_dataset import ImageDataset, LabeledImageDataset  # noqa: F401
from chainlet.datasets.image_dataset import LabeledZippedImageDataset  # noqa: F401
from chainlet.datasets.image_dataset import MultiZippedImageDataset  # noqa: F401
from chainlet.datasets.image_dataset import ZippedImageDataset  # noqa: F401
from chainlet.datasets.kuzushiji_mnist import get_kuzushiji_mnist  # noqa: F401
from chainlet.datasets.kuzushiji_mnist import get_kuzushiji_mnist_labels  # noqa: F401
from chainlet.datasets.mnist import get_fashion_mnist, get_fashion_mnist_labels  # noqa: F401
from chainlet.datasets.mnist import get_mnist  # noqa: F401
from chainlet.datasets.pickle_dataset import PickleDataset, PickleDatasetWriter  # noqa: F401
from chainlet.datasets.pickle_dataset import open_pickle_dataset  # noqa: F401
from chainlet.datasets.pickle_dataset import open_pickle_dataset_writer  # noqa: F401
from chainlet.datasets.ptb import get_ptb_words, get_ptb_words_vocabulary  # noqa: F401
from chainlet.datasets.sub_dataset import SubDataset, split_dataset  # noqa: F401
from chainlet.datasets.sub_dataset import get_cross_validation_datasets  # noqa: F401
from chainlet.datasets.sub_dataset import get_cross_validation_datasets_random  # noqa: F401
from chainlet.datasets.sub_dataset import split_dataset_n, split_dataset_n_random  # noqa: F401
from chainlet.datasets.sub_dataset import split_dataset_random  # noqa: F401
from chainlet.datasets.svhn import get_svhn  # noqa: F401
from chainlet.datasets.text_dataset import TextDataset  # noqa: F401
from chainlet.datasets.transform_dataset import TransformDataset  # noqa: F401
from chainlet.datasets.tuple_dataset import TupleDataset  # noqa: F401
