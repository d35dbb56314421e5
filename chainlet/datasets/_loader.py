"""What the dataset loaders share: mirrors, verified downloads, IDX and pickle parsing, caches.

Loaders download each original file once into ``<dataset root>/<name>/`` (see
:mod:`chainlet.dataset.download`), check it against a table of known SHA-256 digests, parse it,
and keep the parsed arrays as an ``.npz`` file next to it so later calls skip the parsing.
"""
from __future__ import annotations

import gzip
import importlib
import io
import os
import pickle
import zipfile
import zlib
from typing import Any, Callable, Mapping, Sequence, cast

import numpy

from chainlet.dataset import download


def resolve_dtype(dtype: Any) -> numpy.dtype:
    """``dtype``, or ``chainlet.config.dtype`` when it is ``None``, or float32 when both are."""
    if dtype is None:
        from chainlet import config
        dtype = getattr(config, 'dtype', None) or numpy.float32
    return numpy.dtype(dtype)


def base_urls(env_var: str, defaults: Sequence[str]) -> list[str]:
    """The mirrors to try: ``$env_var`` alone when it is set, else ``defaults`` in order."""
    override = os.environ.get(env_var)
    return [override] if override else list(defaults)


def fetch(what: str, dataset_name: str, filename: str, urls: Sequence[str],
          sha256_table: Mapping[str, str]) -> str:
    """Return the local path of ``filename``, downloading it from the first mirror that works.

    Args:
        what: The calling loader's name, for messages.
        dataset_name: Folder under the dataset root.
        filename: The original file name, appended to each base URL.
        urls: Base URLs (``http(s)://`` or ``file://``), tried in order.
        sha256_table: Known digests by file name; a missing entry skips the check.
    """
    path = os.path.join(download.get_dataset_directory(dataset_name), filename)
    if os.path.exists(path):
        return path
    expected = sha256_table.get(filename)
    failures = []
    mismatch = False
    for base in urls:
        url = base.rstrip('/') + '/' + filename
        try:
            return download.download_file(url, path, expected)
        except download.ChecksumMismatchError as e:
            mismatch = True
            failures.append(str(e))
        except OSError as e:  # includes urllib.error.URLError and HTTPError
            failures.append(f'{url}: {e}')
    message = f'{what}: could not download {filename}: ' + '; '.join(failures)
    if mismatch:
        raise download.ChecksumMismatchError(message)
    raise OSError(message)


def _corrupt(what: str, path: str, detail: str) -> ValueError:
    return ValueError(f'{what}: {path} is corrupted or not in the expected format ({detail}); '
                      f'delete it to download it again')


def read_idx_gz(what: str, path: str, ndim: int) -> numpy.ndarray:
    """Parse a gzip-compressed IDX file of unsigned bytes (the MNIST format).

    Args:
        what: The calling loader's name, for messages.
        path: The ``.gz`` file.
        ndim: Expected number of dimensions (1 for labels, 3 for images).

    Returns:
        A ``uint8`` array of the shape stored in the header.
    """
    try:
        with gzip.open(path, 'rb') as f:
            data = f.read()
    except (OSError, EOFError, zlib.error) as e:
        raise _corrupt(what, path, f'not a readable gzip file: {e}') from e
    header = 4 + 4 * ndim
    if len(data) < header:
        raise _corrupt(what, path, f'{len(data)} bytes is shorter than an IDX header')
    if data[0] != 0 or data[1] != 0 or data[2] != 0x08 or data[3] != ndim:
        raise _corrupt(what, path, f'IDX magic {data[:4].hex()} is not 000008{ndim:02x} '
                       f'(unsigned bytes, {ndim} dimensions)')
    shape = tuple(int.from_bytes(data[4 + 4 * k:8 + 4 * k], 'big') for k in range(ndim))
    size = int(numpy.prod(shape))
    if len(data) - header != size:
        raise _corrupt(what, path, f'the header announces shape {shape} ({size} bytes) but '
                       f'{len(data) - header} bytes follow')
    return numpy.frombuffer(data, numpy.uint8, offset=header).reshape(shape)


class _ArrayUnpickler(pickle.Unpickler):
    """Unpickler that only rebuilds plain containers and NumPy arrays.

    The CIFAR batches are pickles; refusing every other global means that a tampered file
    cannot run code even when its checksum is not checked (a mirror without a digest).
    """

    _ALLOWED = {
        ('multiarray', '_reconstruct'), ('multiarray', 'scalar'), ('numeric', '_frombuffer'),
        ('numpy', 'ndarray'), ('numpy', 'dtype'), ('_codecs', 'encode'),
    }

    def find_class(self, module: str, name: str) -> Any:
        leaf = module.rsplit('.', 1)[-1]
        if (leaf, name) not in self._ALLOWED or not module.split('.')[0] in (
                'numpy', '_codecs'):
            raise pickle.UnpicklingError(f'global {module}.{name} is not allowed in a dataset')
        if module.startswith(('numpy.core', 'numpy._core')):
            # NumPy 2 renamed numpy.core to numpy._core and warns on the old name; pickles
            # name either, so use whichever this NumPy has, the new one first.
            rest = module.split('core', 1)[1]
            for candidate in ('numpy._core' + rest, 'numpy.core' + rest):
                try:
                    return getattr(importlib.import_module(candidate), name)
                except (ImportError, AttributeError):
                    continue
        return super().find_class(module, name)


def load_pickle(what: str, path: str, data: bytes, member: str) -> Any:
    """Unpickle ``data`` (a member of the archive ``path``) with Python 2 strings as latin-1."""
    try:
        return _ArrayUnpickler(io.BytesIO(data), encoding='latin1').load()
    except Exception as e:  # any unpickling failure means a bad archive
        raise _corrupt(what, path, f'member {member} is not a valid pickle: {e}') from e


def cached_arrays(what: str, path: str,
                  create: Callable[[], dict[str, numpy.ndarray]]) -> dict[str, numpy.ndarray]:
    """Load the arrays cached in ``path`` (``.npz``), or build them with ``create`` and cache them.

    A cache that cannot be read raises ``ValueError`` naming the file.
    """
    def creator(temp: str) -> dict[str, numpy.ndarray]:
        arrays = create()
        # (the stubs take a value of **arrays for savez_compressed's allow_pickle flag)
        numpy.savez_compressed(temp, **cast(dict[str, Any], arrays))
        return arrays

    def loader(p: str) -> dict[str, numpy.ndarray]:
        try:
            with numpy.load(p, allow_pickle=False) as f:
                return {k: f[k] for k in f.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error) as e:
            raise ValueError(f'{what}: the cache file {p} cannot be read ({e}); delete it to '
                             f'rebuild it') from e

    return download.cache_or_load_file(path, creator, loader)


def check_choice(what: str, name: str, value: Any, choices: Sequence[Any]) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f'{what}: {name} must be one of {list(choices)}, got {value!r}')


def scale_images(images: numpy.ndarray, dtype: numpy.dtype, scale: float,
                 full_scale: float) -> numpy.ndarray:
    """Cast ``images`` to ``dtype`` and map ``[0, full_scale]`` to ``[0, scale]``."""
    if dtype.kind != 'f':
        raise TypeError(f'dataset loaders: dtype must be a floating-point type, got {dtype}')
    out = images.astype(dtype)
    out *= dtype.type(scale / full_scale)
    return out
