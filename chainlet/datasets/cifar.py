"""CIFAR-10 and CIFAR-100: download, verify, read the pickled batches, cache, preprocess.

``CHAINLET_CIFAR10_URL`` / ``CHAINLET_CIFAR100_URL`` replace the default base URL (a folder
URL holding ``cifar-10-python.tar.gz`` / ``cifar-100-python.tar.gz``); ``CIFAR10_SHA256`` and
``CIFAR100_SHA256`` are the expected digests.
"""
from __future__ import annotations

import os
import tarfile
from typing import Any

import numpy

from chainlet.dataset import download
from chainlet.datasets import _loader
from chainlet.datasets.tuple_dataset import TupleDataset

CIFAR_URLS = ['https://www.cs.toronto.edu/~kriz/']
CIFAR10_FILE = 'cifar-10-python.tar.gz'
CIFAR100_FILE = 'cifar-100-python.tar.gz'
CIFAR10_SHA256 = {
    CIFAR10_FILE: '6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce',
}
CIFAR100_SHA256 = {
    CIFAR100_FILE: '85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7',
}

_CIFAR10_TRAIN = tuple(f'cifar-10-batches-py/data_batch_{i}' for i in range(1, 6))
_CIFAR10_TEST = ('cifar-10-batches-py/test_batch',)
_CIFAR100_TRAIN = ('cifar-100-python/train',)
_CIFAR100_TEST = ('cifar-100-python/test',)


def _read_batches(what: str, path: str, tar: tarfile.TarFile, members: tuple[str, ...],
                  label_key: str) -> tuple[numpy.ndarray, numpy.ndarray]:
    xs, ys = [], []
    for member in members:
        try:
            f = tar.extractfile(member)
        except KeyError:
            raise _loader._corrupt(what, path, f'member {member} is missing') from None
        if f is None:
            raise _loader._corrupt(what, path, f'member {member} is not a file')
        batch = _loader.load_pickle(what, path, f.read(), member)
        try:
            x = numpy.asarray(batch['data'], dtype=numpy.uint8)
            y = numpy.asarray(batch[label_key], dtype=numpy.uint8)
        except (KeyError, TypeError, IndexError) as e:
            raise _loader._corrupt(what, path, f'member {member} lacks data or '
                                   f'{label_key}: {e!r}') from e
        if x.ndim != 2 or x.shape[1] != 3072 or len(x) != len(y):
            raise _loader._corrupt(what, path, f'member {member} holds data of shape '
                                   f'{x.shape} and {len(y)} labels; expected (N, 3072), N')
        xs.append(x)
        ys.append(y)
    return numpy.concatenate(xs), numpy.concatenate(ys)


def _load(what: str, name: str, filename: str, table: dict[str, str], env_var: str,
          train_members: tuple[str, ...], test_members: tuple[str, ...],
          label_key: str) -> dict[str, numpy.ndarray]:
    def create() -> dict[str, numpy.ndarray]:
        urls = _loader.base_urls(env_var, CIFAR_URLS)
        archive = _loader.fetch(what, name, filename, urls, table)
        try:
            with tarfile.open(archive, 'r:gz') as tar:
                train_x, train_y = _read_batches(what, archive, tar, train_members, label_key)
                test_x, test_y = _read_batches(what, archive, tar, test_members, label_key)
        except (tarfile.TarError, OSError, EOFError) as e:
            raise _loader._corrupt(what, archive, f'not a readable tar.gz archive: {e}') from e
        return {'train_x': train_x, 'train_y': train_y, 'test_x': test_x, 'test_y': test_y}

    path = os.path.join(download.get_dataset_directory(name), f'{name}.npz')
    return _loader.cached_arrays(what, path, create)


def _preprocess(what: str, images: numpy.ndarray, labels: numpy.ndarray, withlabel: bool,
                ndim: int, scale: float, dtype: numpy.dtype) -> Any:
    images = images.reshape(-1, 3072) if ndim == 1 else images.reshape(-1, 3, 32, 32)
    images = _loader.scale_images(images, dtype, scale, 255.)
    if withlabel:
        return TupleDataset(images, labels.astype(numpy.int32))
    return images


def _get(what: str, raw: Any, withlabel: bool, ndim: int, scale: float, dtype: Any) -> tuple:
    _loader.check_choice(what, 'ndim', ndim, (1, 3))
    dtype = _loader.resolve_dtype(dtype)
    arrays = raw()
    return (_preprocess(what, arrays['train_x'], arrays['train_y'], withlabel, ndim, scale,
                        dtype),
            _preprocess(what, arrays['test_x'], arrays['test_y'], withlabel, ndim, scale,
                        dtype))


def get_cifar10(withlabel: bool = True, ndim: int = 3, scale: float = 1.,
                dtype: Any = None) -> tuple:
    """Return CIFAR-10 as ``(train, test)`` (50,000 and 10,000 colour 32x32 images, 10 classes).

    The original ``cifar-10-python.tar.gz`` is downloaded once into
    ``<dataset root>/cifar10``, checked against its SHA-256, and its pickled batches are read
    straight from the archive; the arrays are cached as ``cifar10.npz``.

    Args:
        withlabel: Return :class:`TupleDataset` of ``(image, label)`` (labels int32);
            otherwise the image arrays alone.
        ndim: 3 gives images of shape ``(3, 32, 32)``, 1 gives ``(3072,)``.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Floating type of the images; ``None`` means ``chainlet.config.dtype`` if set,
            else float32.

    Returns:
        ``(train, test)``.

    Example:
        >>> from chainlet.datasets import get_cifar10
        >>> train, test = get_cifar10()  # doctest: +SKIP
        >>> train[0][0].shape  # doctest: +SKIP
        (3, 32, 32)
    """
    return _get('get_cifar10', lambda: _load(
        'get_cifar10', 'cifar10', CIFAR10_FILE, CIFAR10_SHA256, 'CHAINLET_CIFAR10_URL',
        _CIFAR10_TRAIN, _CIFAR10_TEST, 'labels'), withlabel, ndim, scale, dtype)


def get_cifar100(withlabel: bool = True, ndim: int = 3, scale: float = 1.,
                 dtype: Any = None) -> tuple:
    """Return CIFAR-100 with its 100 fine labels as ``(train, test)``.

    Same arguments and conventions as :func:`get_cifar10`; cached under
    ``<dataset root>/cifar100``.

    Args:
        withlabel: Return ``(image, label)`` tuples, or the image arrays alone.
        ndim: 3 or 1.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Floating type of the images.

    Returns:
        ``(train, test)``.
    """
    return _get('get_cifar100', lambda: _load(
        'get_cifar100', 'cifar100', CIFAR100_FILE, CIFAR100_SHA256, 'CHAINLET_CIFAR100_URL',
        _CIFAR100_TRAIN, _CIFAR100_TEST, 'fine_labels'), withlabel, ndim, scale, dtype)
