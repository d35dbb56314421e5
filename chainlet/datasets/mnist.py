"""MNIST and Fashion-MNIST: download, verify, parse the IDX files, cache, preprocess.

The base URLs can be replaced by setting ``CHAINLET_MNIST_URL`` (or
``CHAINLET_FASHION_MNIST_URL``) to a folder URL holding the four original ``.gz`` files, e.g.
a local mirror ``file:///data/mnist/``; the lists ``MNIST_URLS``/``FASHION_MNIST_URLS`` are
the default mirrors and ``MNIST_SHA256``/``FASHION_MNIST_SHA256`` the expected digests.
"""
from __future__ import annotations

import os
from typing import Any

import numpy

from chainlet.dataset import download
from chainlet.datasets import _loader
from chainlet.datasets.tuple_dataset import TupleDataset

_FILES = {
    'train': ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
    'test': ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz'),
}

MNIST_URLS = [
    'https://storage.googleapis.com/cvdf-datasets/mnist/',
    'https://ossci-datasets.s3.amazonaws.com/mnist/',
]
MNIST_SHA256 = {
    'train-images-idx3-ubyte.gz':
        '440fcabf73cc546fa21475e81ea370265605f56be210a4024d2ca8f203523609',
    'train-labels-idx1-ubyte.gz':
        '3552534a0a558bbed6aed32b30c495cca23d567ec52cac8be1a0730e8010255c',
    't10k-images-idx3-ubyte.gz':
        '8d422c7b0a1c1c79245a5bcf07fe86e33eeafee792b84584aec276f5a2dbc4e6',
    't10k-labels-idx1-ubyte.gz':
        'f7ae60f92e00ec6debd23a6088c31dbd2371eca3ffa0defaefb259924204aec6',
}

FASHION_MNIST_URLS = [
    'http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/',
]
FASHION_MNIST_SHA256 = {
    'train-images-idx3-ubyte.gz':
        '3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84',
    'train-labels-idx1-ubyte.gz':
        'a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845',
    't10k-images-idx3-ubyte.gz':
        '346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073',
    't10k-labels-idx1-ubyte.gz':
        '67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5',
}

_FASHION_LABELS = ('T-shirt/top', 'Trouser', 'Pullover', 'Dress', 'Coat', 'Sandal', 'Shirt',
                   'Sneaker', 'Bag', 'Ankle boot')


def _load_split(what: str, name: str, split: str, urls: list[str],
                table: dict[str, str]) -> dict[str, numpy.ndarray]:
    def create() -> dict[str, numpy.ndarray]:
        image_file, label_file = _FILES[split]
        image_path = _loader.fetch(what, name, image_file, urls, table)
        label_path = _loader.fetch(what, name, label_file, urls, table)
        x = _loader.read_idx_gz(what, image_path, 3)
        y = _loader.read_idx_gz(what, label_path, 1)
        if len(x) != len(y):
            raise ValueError(f'{what}: {image_path} holds {len(x)} images but {label_path} '
                             f'holds {len(y)} labels')
        return {'x': x, 'y': y}

    path = os.path.join(download.get_dataset_directory(name), f'{split}.npz')
    return _loader.cached_arrays(what, path, create)


def _preprocess(what: str, raw: dict[str, numpy.ndarray], withlabel: bool, ndim: int,
                scale: float, dtype: numpy.dtype, label_dtype: Any, rgb_format: bool) -> Any:
    images = raw['x']
    n, rows, cols = images.shape
    if ndim == 1:
        images = images.reshape(n, rows * cols)
    elif ndim == 2:
        images = images.reshape(n, rows, cols)
    else:
        images = images.reshape(n, 1, rows, cols)
        if rgb_format:
            images = numpy.broadcast_to(images, (n, 3, rows, cols))
    images = _loader.scale_images(images, dtype, scale, 255.)
    if withlabel:
        return TupleDataset(images, raw['y'].astype(label_dtype))
    return images


def _get(what: str, name: str, urls: list[str], table: dict[str, str], withlabel: bool,
         ndim: int, scale: float, dtype: Any, label_dtype: Any, rgb_format: bool) -> tuple:
    _loader.check_choice(what, 'ndim', ndim, (1, 2, 3))
    if rgb_format and ndim != 3:
        raise ValueError(f'{what}: rgb_format=True needs ndim=3, got ndim={ndim}')
    dtype = _loader.resolve_dtype(dtype)
    return tuple(_preprocess(what, _load_split(what, name, split, urls, table), withlabel,
                             ndim, scale, dtype, label_dtype, rgb_format)
                 for split in ('train', 'test'))


def get_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1., dtype: Any = None,
              label_dtype: Any = numpy.int32, rgb_format: bool = False) -> tuple:
    """Return the MNIST handwritten digits as ``(train, test)`` (60,000 and 10,000 images).

    The four original IDX files are downloaded once into ``<dataset root>/mnist`` and checked
    against their known SHA-256; the parsed arrays are cached there as ``train.npz`` and
    ``test.npz``.

    Args:
        withlabel: Return :class:`TupleDataset` of ``(image, label)``; otherwise return the
            image arrays alone.
        ndim: Shape of each image: 1 gives ``(784,)``, 2 gives ``(28, 28)``, 3 gives
            ``(1, 28, 28)`` (``(3, 28, 28)`` with ``rgb_format``).
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Floating type of the images; ``None`` means ``chainlet.config.dtype`` if set,
            else float32.
        label_dtype: Type of the labels.
        rgb_format: With ``ndim=3``, repeat the gray channel three times.

    Returns:
        ``(train, test)``: two :class:`TupleDataset` (or two arrays when ``withlabel`` is
        false).

    Example:
        >>> from chainlet.datasets import get_mnist
        >>> train, test = get_mnist()  # doctest: +SKIP
        >>> x, t = train[0]  # doctest: +SKIP
        >>> x.shape, x.dtype, int(t)  # doctest: +SKIP
        ((784,), dtype('float32'), 5)
    """
    urls = _loader.base_urls('CHAINLET_MNIST_URL', MNIST_URLS)
    return _get('get_mnist', 'mnist', urls, MNIST_SHA256, withlabel, ndim, scale, dtype,
                label_dtype, rgb_format)


def get_fashion_mnist(withlabel: bool = True, ndim: int = 1, scale: float = 1.,
                      dtype: Any = None, label_dtype: Any = numpy.int32,
                      rgb_format: bool = False) -> tuple:
    """Return Fashion-MNIST (Zalando's clothing images) as ``(train, test)``.

    Same files, formats and arguments as :func:`get_mnist`; cached under
    ``<dataset root>/fashion-mnist``. Class names: :func:`get_fashion_mnist_labels`.

    Args:
        withlabel: Return ``(image, label)`` tuples, or the image arrays alone.
        ndim: 1, 2 or 3 (see :func:`get_mnist`).
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Floating type of the images (``None``: ``chainlet.config.dtype`` or float32).
        label_dtype: Type of the labels.
        rgb_format: With ``ndim=3``, repeat the gray channel three times.

    Returns:
        ``(train, test)``.
    """
    urls = _loader.base_urls('CHAINLET_FASHION_MNIST_URL', FASHION_MNIST_URLS)
    return _get('get_fashion_mnist', 'fashion-mnist', urls, FASHION_MNIST_SHA256, withlabel,
                ndim, scale, dtype, label_dtype, rgb_format)


def get_fashion_mnist_labels() -> tuple[str, ...]:
    """Return the ten Fashion-MNIST class names, indexed by label.

    Example:
        >>> from chainlet.datasets import get_fashion_mnist_labels
        >>> get_fashion_mnist_labels()[9]
        'Ankle boot'
    """
    return _FASHION_LABELS
