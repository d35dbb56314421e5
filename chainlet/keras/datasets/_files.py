"""Downloads and safe reading for ``keras.datasets``.

Files are cached where Keras keeps them: ``$KERAS_HOME/datasets`` (``~/.keras/datasets`` when
``KERAS_HOME`` is unset, ``/tmp/.keras/datasets`` when that folder cannot be written). A file
missing from the cache is downloaded from Keras's origin with
:func:`chainlet.dataset.download.download_file` (atomic, SHA-256 checked); MD5 digests, which
Keras uses for the word indexes, are checked before the file is moved into place. A cached
file whose digest does not match is downloaded again. Without network access the error names
the URL and the path where the file can be put by hand.

Some Keras files hold pickles (the ragged sequences of IMDB and Reuters, the CIFAR batches).
They are read with a restricted unpickler that only rebuilds NumPy arrays and plain Python
containers, so a doctored file cannot run code.
"""
from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import tarfile
import tempfile
import zipfile
from typing import Any, Optional

import numpy

from chainlet.dataset.download import ChecksumMismatchError, download_file
from chainlet.serializers import atomic_path

#: Where Keras hosts its small datasets; tests point it at a ``file://`` folder.
ORIGIN_FOLDER = 'https://storage.googleapis.com/tensorflow/tf-keras-datasets/'
#: Where the CIFAR archives come from.
CIFAR_ORIGIN_FOLDER = 'https://www.cs.toronto.edu/~kriz/'

#: Expected digests (SHA-256, or MD5 for 32 hex digits), by file name, as in Keras.
HASHES = {
    'mnist.npz': '731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1',
    'train-labels-idx1-ubyte.gz':
        'a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845',
    'train-images-idx3-ubyte.gz':
        '3aede38d61863908ad78613f6a32ed271626dd12800ba2636569512369268a84',
    't10k-labels-idx1-ubyte.gz':
        '67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5',
    't10k-images-idx3-ubyte.gz':
        '346e55b948d973a97e58d2351dde16a484bd415d4595297633bb08f03db6a073',
    'cifar-10-python.tar.gz':
        '6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce',
    'cifar-100-python.tar.gz':
        '85cd44d02ba6437773c5bbd22e183051d648de2e7d6b014e1ef29b855ba677a7',
    'imdb.npz': '69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f',
    'imdb_word_index.json': 'bfafd718b763782e994055a2d397834f',
    'reuters.npz': 'd6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916',
    'reuters_word_index.json': '4d44cc38712099c9e383dc6e5f11a921',
    'boston_housing.npz': 'f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5',
    'california_housing.npz':
        '1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f',
}


def cache_dir(cache_subdir: str = 'datasets') -> str:
    """``$KERAS_HOME/<cache_subdir>`` (``~/.keras/...``), created if needed; falls back to
    ``/tmp/.keras/<cache_subdir>`` when the folder cannot be written (as Keras does)."""
    base = os.environ.get('KERAS_HOME') or os.path.join(os.path.expanduser('~'), '.keras')
    path = os.path.join(base, cache_subdir)
    try:
        os.makedirs(path, exist_ok=True)
        if not os.access(path, os.W_OK):
            raise PermissionError(path)
    except OSError:
        path = os.path.join(tempfile.gettempdir(), '.keras', cache_subdir)
        os.makedirs(path, exist_ok=True)
    return path


def _digest(path: str, expected: str) -> str:
    algorithm = hashlib.md5 if len(expected) == 32 else hashlib.sha256
    digest = algorithm()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


def get_file(fname: str, origin: str, file_hash: Optional[str] = None,
             cache_subdir: str = 'datasets', where: str = 'keras.datasets') -> str:
    """The local path of ``fname`` (relative to the cache folder, or absolute), downloading
    ``origin`` when the file is missing or fails its ``file_hash``.

    Raises:
        chainlet.dataset.download.ChecksumMismatchError: The download has another digest
            (nothing is left in the cache).
        OSError: The download failed; the message says where to put the file by hand.
    """
    path = os.path.join(cache_dir(cache_subdir), fname)
    if os.path.exists(path) and (file_hash is None or _digest(path, file_hash) ==
                                 file_hash.lower()):
        return path
    os.makedirs(os.path.dirname(path), exist_ok=True)
    sha256 = file_hash if file_hash is not None and len(file_hash) == 64 else None
    try:
        if file_hash is not None and sha256 is None:  # MD5: verify before moving in place
            with atomic_path(path) as tmp:  # the project's one atomic write
                download_file(origin, tmp)
                actual = _digest(tmp, file_hash)
                if actual != file_hash.lower():
                    raise ChecksumMismatchError(
                        f'{where}: {origin} has MD5 {actual} but {file_hash} was expected; '
                        f'the download was deleted')
        else:
            download_file(origin, path, sha256)
    except ChecksumMismatchError:
        raise
    except OSError as e:
        raise OSError(f'{where}: cannot download {origin} ({e}); without network access, '
                      f'put the file at {path}') from e
    return path


def get_extracted(archive: str, origin: str, target: str, member: Optional[str],
                  where: str) -> str:
    """The folder ``<cache>/<target>`` extracted from the ``.tar.gz`` ``archive`` (downloaded
    and verified with :func:`get_file`); ``member`` is the archive's top folder to move there,
    or ``None`` to keep the whole extraction as ``target``. Extraction goes to a temporary
    folder that is renamed into place, so an interrupted run leaves no half folder."""
    root = cache_dir()
    final = os.path.join(root, target)
    if os.path.isdir(final):
        return final
    path = get_file(archive, origin, HASHES.get(archive), where=where)
    tmp = tempfile.mkdtemp(dir=root, prefix='.extract-')
    try:
        with tarfile.open(path, 'r:gz') as tar:
            for info in tar.getmembers():
                name = os.path.normpath(info.name)
                if name.startswith(('..', os.sep)) or not (info.isfile() or info.isdir()):
                    raise ValueError(f'{where}: {path} has an unsafe member {info.name!r}')
            if hasattr(tarfile, 'data_filter'):  # PEP 706 (3.12; backported to 3.10.12+)
                tar.extractall(tmp, filter='data')
            else:
                tar.extractall(tmp)
        source = tmp if member is None else os.path.join(tmp, member)
        if not os.path.isdir(source):
            raise ValueError(f'{where}: {path} has no folder {member!r}')
        os.replace(source, final)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return final


def extract_archive(path: str, target: str, archive_format: str = 'auto',
                    where: str = 'get_file') -> str:
    """Unpack the tar or zip archive ``path`` into the folder ``target`` (replaced if present).

    Members with absolute paths, ``..`` or links are refused. The unpacking goes to a temporary
    folder next to ``target`` that is renamed into place, so an interrupted run leaves no half
    folder under the real name."""
    formats = {'auto': ('tar', 'zip'), 'tar': ('tar',), 'zip': ('zip',)}
    if archive_format not in formats:
        raise ValueError(f"{where}: argument archive_format: expected 'auto', 'tar' or 'zip', "
                         f"got {archive_format!r}")
    parent = os.path.dirname(os.path.abspath(target))
    tmp = tempfile.mkdtemp(dir=parent, prefix='.extract-')
    try:
        if 'tar' in formats[archive_format] and tarfile.is_tarfile(path):
            with tarfile.open(path) as tar:
                for info in tar.getmembers():
                    _check_member(info.name, info.isfile() or info.isdir(), path, where)
                if hasattr(tarfile, 'data_filter'):
                    tar.extractall(tmp, filter='data')
                else:
                    tar.extractall(tmp)
        elif 'zip' in formats[archive_format] and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                for name in zf.namelist():
                    _check_member(name, True, path, where)
                zf.extractall(tmp)
        else:
            raise ValueError(f'{where}: {path} is not a {" or ".join(formats[archive_format])} '
                             f'archive')
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.replace(tmp, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _check_member(name: str, regular: bool, path: str, where: str) -> None:
    normal = os.path.normpath(name)
    if os.path.isabs(normal) or normal.startswith('..') or not regular:
        raise ValueError(f'{where}: {path} has an unsafe member {name!r}')


_SAFE_GLOBALS = {
    ('numpy.core.multiarray', '_reconstruct'), ('numpy._core.multiarray', '_reconstruct'),
    ('numpy.core.multiarray', 'scalar'), ('numpy._core.multiarray', 'scalar'),
    ('numpy', 'ndarray'), ('numpy', 'dtype'),
}


class RestrictedUnpickler(pickle.Unpickler):
    """An unpickler that only rebuilds NumPy arrays, scalars and dtypes (and plain Python
    containers, which need no lookup): any other global raises ``pickle.UnpicklingError``."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _SAFE_GLOBALS:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f'refusing to load {module}.{name} from a dataset file '
                                     f'(only NumPy arrays are allowed)')


def load_npz(path: str) -> dict:
    """The arrays of an ``.npz`` file; object arrays go through :class:`RestrictedUnpickler`
    instead of ``numpy.load(allow_pickle=True)``."""
    out = {}
    with zipfile.ZipFile(path) as z:
        for member in z.namelist():
            key = member[:-4] if member.endswith('.npy') else member
            data = z.read(member)
            f = io.BytesIO(data)
            version = numpy.lib.format.read_magic(f)
            if version == (1, 0):
                _, _, dtype = numpy.lib.format.read_array_header_1_0(f)
            else:
                _, _, dtype = numpy.lib.format.read_array_header_2_0(f)
            if dtype.hasobject:
                out[key] = RestrictedUnpickler(f, encoding='latin1').load()
            else:
                out[key] = numpy.load(io.BytesIO(data), allow_pickle=False)
    return out


def load_pickle(path: str) -> Any:
    """A pickle file (CIFAR batches) through :class:`RestrictedUnpickler`."""
    with open(path, 'rb') as f:
        return RestrictedUnpickler(f, encoding='bytes').load()


def object_array(items: list) -> numpy.ndarray:
    """A 1-D object array of ``items`` (lists stay lists even when all have one length)."""
    out = numpy.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def remove_long_seq(maxlen: int, seq: list, label: Any) -> tuple:
    """Keep the sequences shorter than ``maxlen`` (and their labels), as Keras does."""
    keep = [i for i, x in enumerate(seq) if len(x) < maxlen]
    return [seq[i] for i in keep], [label[i] for i in keep]
