"""SVHN (Street View House Numbers): 32x32 colour crops of digits, in MATLAB files.

Reading the ``.mat`` files needs SciPy (``scipy.io.loadmat``; ``pip install
"chainlet-dl[special]"``). They are downloaded from the Stanford mirror (``CHAINLET_SVHN_URL``
replaces it) into ``<dataset root>/svhn`` and the parsed arrays cached there as ``.npz``. In the
files the digit 0 has label 10; the loader maps it to 0, so that label ``d`` is digit ``d``.
"""
from __future__ import annotations

import os
from typing import Any

import numpy

from chainlet.dataset import download
from chainlet.datasets import _loader
from chainlet.datasets.tuple_dataset import TupleDataset

SVHN_URLS = ['http://ufldl.stanford.edu/housenumbers/']


def _load(split: str) -> dict[str, numpy.ndarray]:
    def create() -> dict[str, numpy.ndarray]:
        try:
            from scipy import io as scipy_io
        except ImportError as e:
            raise RuntimeError('get_svhn: SciPy is needed to read the SVHN .mat files; '
                               'install it with pip install "chainlet-dl[special]"') from e
        urls = _loader.base_urls('CHAINLET_SVHN_URL', SVHN_URLS)
        path = _loader.fetch('get_svhn', 'svhn', f'{split}_32x32.mat', urls, {})
        raw = scipy_io.loadmat(path)
        return {'x': raw['X'].astype(numpy.uint8), 'y': raw['y'].astype(numpy.uint8)}

    path = os.path.join(download.get_dataset_directory('svhn'), f'{split}.npz')
    return _loader.cached_arrays('get_svhn', path, create)


def _preprocess(raw: dict[str, numpy.ndarray], withlabel: bool, scale: float,
                dtype: numpy.dtype, label_dtype: Any) -> Any:
    images = _loader.scale_images(raw['x'].transpose(3, 2, 0, 1), dtype, scale, 255.)
    labels = raw['y'].astype(label_dtype).ravel()
    labels[labels == 10] = 0
    return TupleDataset(images, labels) if withlabel else images


def get_svhn(withlabel: bool = True, scale: float = 1., dtype: Any = None,
             label_dtype: Any = numpy.int32, add_extra: bool = False) -> tuple:
    """Return SVHN as ``(train, test)`` (73,257 and 26,032 images), or with ``extra``.

    Args:
        withlabel: Return ``(image, label)`` tuples, or the image arrays alone.
        scale: Pixel values are scaled to ``[0, scale]``.
        dtype: Floating type of the images, shape ``(3, 32, 32)`` (``None``:
            ``chainlet.config.dtype`` or float32).
        label_dtype: Type of the labels (0..9).
        add_extra: Also return the 531,131 "extra" images, as a third dataset.

    Returns:
        ``(train, test)``, or ``(train, test, extra)`` with ``add_extra``.

    Raises:
        RuntimeError: SciPy is not installed (and the arrays are not cached yet).
    """
    dtype = _loader.resolve_dtype(dtype)
    splits = ('train', 'test', 'extra') if add_extra else ('train', 'test')
    return tuple(_preprocess(_load(s), withlabel, scale, dtype, label_dtype) for s in splits)
