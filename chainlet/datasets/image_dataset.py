"""Datasets of image files: by path list, path/label list, zip archive(s).

Each example is read from disk (or from the archive) when it is indexed, decoded with Pillow
(an optional dependency: ``pip install "chainlet-dl[image]"``) and returned as an array of shape
``(channels, height, width)`` — 1 channel for a grey image, 3 for RGB, 4 for RGBA — in
``dtype`` (``chainlet.config.dtype`` by default), pixel values unscaled (0..255 for 8-bit
images). Converting the images to one format and scale is the user's job, as in Chainer.

The zip datasets reopen their archive in a process that did not open it (a ``fork`` of a
multiprocess iterator, or an unpickled copy), because a ``ZipFile`` handle shared across
processes reads from a shared file offset.

Example:
    >>> import os, tempfile, numpy as np
    >>> from PIL import Image
    >>> from chainlet.datasets import LabeledImageDataset
    >>> root = tempfile.mkdtemp()
    >>> Image.fromarray(np.full((2, 3), 7, np.uint8)).save(os.path.join(root, 'a.png'))
    >>> ds = LabeledImageDataset([('a.png', 4)], root=root)
    >>> x, t = ds[0]
    >>> x.shape, x.dtype, float(x[0, 0, 0]), int(t)
    ((1, 2, 3), dtype('float32'), 7.0, 4)
"""
from __future__ import annotations

import bisect
import io
import numbers
import os
import threading
import zipfile
from typing import Any, Sequence, Union

import numpy

from chainlet import _config
from chainlet.dataset.dataset_mixin import DatasetMixin


def _pillow() -> Any:
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError('image datasets need Pillow to decode images; install it with '
                          'pip install "chainlet-dl[image]"') from e
    return Image


def _read_image(source: Any, dtype: numpy.dtype) -> numpy.ndarray:
    """Decode an image file (a path or a binary file object) to ``(C, H, W)``."""
    with _pillow().open(source) as f:
        image = numpy.asarray(f, dtype=dtype)
    if image.ndim == 2:
        image = image[:, :, None]
    return image.transpose(2, 0, 1)


def _read_pairs(path: str) -> list[tuple[str, int]]:
    """Caffe's label file: one ``<path> <integer label>`` pair per line."""
    pairs = []
    with open(path) as f:
        for i, line in enumerate(f):
            pair = line.strip().split()
            if len(pair) != 2:
                raise ValueError(f'invalid format at line {i} in file {path}: expected '
                                 f'"<path> <label>", got {line.strip()!r}')
            pairs.append((pair[0], int(pair[1])))
    return pairs


class ImageDataset(DatasetMixin):
    """Images read from files listed by path.

    Args:
        paths: A list of image paths, or the path of a text file with one image path per line.
            Paths are relative to ``root``.
        root: The directory the paths are relative to.
        dtype: The dtype of the arrays (``chainlet.config.dtype`` if ``None``).
    """

    def __init__(self, paths: Union[str, Sequence[str]], root: str = '.',
                 dtype: Any = None) -> None:
        _pillow()
        if isinstance(paths, str):
            with open(paths) as f:
                paths = [line.strip() for line in f]
        self._paths = list(paths)
        self._root = root
        self._dtype = _config.get_dtype(dtype)

    def __len__(self) -> int:
        return len(self._paths)

    def get_example(self, i: int) -> numpy.ndarray:
        return _read_image(os.path.join(self._root, self._paths[i]), self._dtype)


class LabeledImageDataset(DatasetMixin):
    """``(image, label)`` pairs; images read from files, labels given with their paths.

    Args:
        pairs: A list of ``(path, int label)`` pairs, or the path of a text file with one
            ``<path> <label>`` pair per line, separated by white space (Caffe's format).
        root: The directory the image paths are relative to.
        dtype: The dtype of the images (``chainlet.config.dtype`` if ``None``).
        label_dtype: The dtype of the labels (0-d arrays).

    Raises:
        ValueError: A line of the pair file is not a path and a label.
    """

    def __init__(self, pairs: Union[str, Sequence[tuple[str, int]]], root: str = '.',
                 dtype: Any = None, label_dtype: Any = numpy.int32) -> None:
        _pillow()
        self._pairs = _read_pairs(pairs) if isinstance(pairs, str) else list(pairs)
        self._root = root
        self._dtype = _config.get_dtype(dtype)
        self._label_dtype = label_dtype

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[i]
        image = _read_image(os.path.join(self._root, path), self._dtype)
        return image, numpy.array(label, dtype=self._label_dtype)


class ZippedImageDataset(DatasetMixin):
    """Images read from one zip archive (every file in it that is not a directory).

    Reading many small files from one archive is kinder to network file systems than opening
    each. An example can also be fetched by its name in the archive: ``ds.get_example(name)``.

    Args:
        zipfilename: The zip archive.
        dtype: The dtype of the arrays (``chainlet.config.dtype`` if ``None``).
    """

    def __init__(self, zipfilename: str, dtype: Any = None) -> None:
        self._zipfilename = zipfilename
        self._zf: Any = zipfile.ZipFile(zipfilename)
        self._zf_pid = os.getpid()
        self._dtype = _config.get_dtype(dtype)
        self._paths = [name for name in self._zf.namelist() if not name.endswith('/')]
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._paths)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state['_zf'] = None  # reopened where it is unpickled
        state['_lock'] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state
        self._lock = threading.Lock()

    def get_example(self, i_or_filename: Union[int, str]) -> numpy.ndarray:
        if isinstance(i_or_filename, numbers.Integral):
            name = self._paths[i_or_filename]
        else:
            name = i_or_filename
        with self._lock:
            if self._zf is None or self._zf_pid != os.getpid():
                self._zf_pid = os.getpid()
                self._zf = zipfile.ZipFile(self._zipfilename)
            data = self._zf.read(name)
        return _read_image(io.BytesIO(data), self._dtype)


class MultiZippedImageDataset(DatasetMixin):
    """The images of several zip archives, one after the other.

    Args:
        zipfilenames: The zip archives, in order.
        dtype: The dtype of the arrays (``chainlet.config.dtype`` if ``None``).
    """

    def __init__(self, zipfilenames: Sequence[str], dtype: Any = None) -> None:
        self._zfs = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._offsets = [0]
        for zf in self._zfs:
            self._offsets.append(self._offsets[-1] + len(zf))

    def __len__(self) -> int:
        return self._offsets[-1]

    def get_example(self, i: int) -> numpy.ndarray:
        which = bisect.bisect(self._offsets, i) - 1
        return self._zfs[which].get_example(i - self._offsets[which])


class LabeledZippedImageDataset(DatasetMixin):
    """``(image, label)`` pairs; images from a zip archive, pairs from a label file.

    Args:
        zipfilename: The zip archive.
        labelfilename: A text file of ``<name in the archive> <label>`` lines (Caffe's format).
        dtype: The dtype of the images (``chainlet.config.dtype`` if ``None``).
        label_dtype: The dtype of the labels (0-d arrays).
    """

    def __init__(self, zipfilename: str, labelfilename: str, dtype: Any = None,
                 label_dtype: Any = numpy.int32) -> None:
        _pillow()
        self._pairs = _read_pairs(labelfilename)
        self._label_dtype = label_dtype
        self._zipfile = ZippedImageDataset(zipfilename, dtype=dtype)

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        name, label = self._pairs[i]
        return self._zipfile.get_example(name), numpy.array(label, dtype=self._label_dtype)


def __getattr__(name: str) -> Any:
    # Chainer's flag ``available``: whether Pillow imports (probed on first access).
    if name == 'available':
        try:
            _pillow()
        except ImportError:
            return False
        return True
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
