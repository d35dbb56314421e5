"""Where datasets are cached, and downloads that are verified and written atomically.

The cache root is ``$CHAINLET_DATASET_ROOT`` when that variable is set, else
``~/.chainlet/dataset``; :func:`set_dataset_root` overrides both for this process. Every file
is first written to a temporary file in its final folder and then renamed into place with
``os.replace``, so an interrupted download or conversion never leaves a half-written file
under the final name. Only the standard library is used for downloading.

Example:
    >>> import os, tempfile
    >>> from chainlet.dataset import download
    >>> root = tempfile.mkdtemp()
    >>> download.set_dataset_root(root)
    >>> os.path.relpath(download.get_dataset_directory('mnist'), root)
    'mnist'
    >>> download.set_dataset_root(None)  # back to the environment variable or the default
"""
from __future__ import annotations

import hashlib
import os
import shutil
import urllib.request
from typing import Any, Callable

from chainlet._atomic import atomic_path

_ENV_ROOT = 'CHAINLET_DATASET_ROOT'
_dataset_root: str | None = None  # set by set_dataset_root; None means "ask the environment"

_CHUNK = 1 << 20


class ChecksumMismatchError(ValueError):
    """A downloaded file whose SHA-256 differs from the expected one (the file is deleted)."""


def get_dataset_root() -> str:
    """Return the root folder of the dataset cache.

    Returns:
        The path given to :func:`set_dataset_root`, else ``$CHAINLET_DATASET_ROOT``, else
        ``~/.chainlet/dataset``.
    """
    if _dataset_root is not None:
        return _dataset_root
    env = os.environ.get(_ENV_ROOT)
    if env:
        return os.path.abspath(os.path.expanduser(env))
    return os.path.join(os.path.expanduser('~'), '.chainlet', 'dataset')


def set_dataset_root(path: str | os.PathLike | None) -> None:
    """Set the root folder of the dataset cache for this process.

    Args:
        path: A folder (created on first use), or ``None`` to go back to
            ``$CHAINLET_DATASET_ROOT`` or the default ``~/.chainlet/dataset``.
    """
    global _dataset_root
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError(f'set_dataset_root: path must be a str, a path or None, '
                        f'got {type(path).__name__}')
    _dataset_root = None if path is None else os.path.abspath(os.fspath(path))


def get_dataset_directory(dataset_name: str, create_directory: bool = True) -> str:
    """Return the cache folder of one dataset, ``<root>/<dataset_name>``.

    Args:
        dataset_name: A relative name such as ``'mnist'``.
        create_directory: Create the folder (and its parents) when it does not exist.

    Returns:
        The folder's path.
    """
    path = os.path.join(get_dataset_root(), dataset_name)
    if create_directory:
        os.makedirs(path, exist_ok=True)
    return path


def file_sha256(path: str) -> str:
    """Return the SHA-256 hex digest of a file."""
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(_CHUNK), b''):
            digest.update(chunk)
    return digest.hexdigest()


def download_file(url: str, path: str, sha256: str | None = None, timeout: float = 60.0) -> str:
    """Download ``url`` to ``path`` atomically, checking its SHA-256 when one is given.

    The data goes to a temporary file in the folder of ``path``; only a complete download
    with the right checksum is renamed to ``path``.

    Args:
        url: Any URL ``urllib.request`` opens (``https://``, ``http://``, ``file://``).
        path: Where to store the file.
        sha256: Expected hex digest, or ``None`` to skip the check.
        timeout: Socket timeout in seconds.

    Returns:
        ``path``.

    Raises:
        ChecksumMismatchError: The digest differs (nothing is left on disk).
        OSError: The download failed (``urllib.error.URLError`` is an ``OSError``).
    """
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_path(path) as temp:
        digest = hashlib.sha256()
        with urllib.request.urlopen(url, timeout=timeout) as response, open(temp, 'wb') as out:
            for chunk in iter(lambda: response.read(_CHUNK), b''):
                digest.update(chunk)
                out.write(chunk)
        if sha256 is not None and digest.hexdigest() != sha256.lower():
            raise ChecksumMismatchError(
                f'download_file: {url} has SHA-256 {digest.hexdigest()} but {sha256} was '
                f'expected; the download was deleted (a broken mirror or a changed file)')
    return path


def cached_download(url: str, sha256: str | None = None, path: str | None = None) -> str:
    """Return a local copy of ``url``, downloading it only when it is not cached yet.

    Args:
        url: The file's URL.
        sha256: Expected hex digest of the download (checked once, when downloading).
        path: Where to keep the file; by default ``<root>/_dl_cache/<md5 of the url>``.

    Returns:
        The local path.

    Example:
        >>> import os, pathlib, tempfile
        >>> from chainlet.dataset import cached_download
        >>> src = os.path.join(tempfile.mkdtemp(), 'a.txt')
        >>> _ = pathlib.Path(src).write_text('hello')
        >>> local = cached_download(pathlib.Path(src).as_uri(),
        ...                         path=os.path.join(tempfile.mkdtemp(), 'a.txt'))
        >>> pathlib.Path(local).read_text()
        'hello'
    """
    if path is None:
        name = hashlib.md5(url.encode('utf-8'), usedforsecurity=False).hexdigest()
        path = os.path.join(get_dataset_directory('_dl_cache'), name)
    if not os.path.exists(path):
        download_file(url, path, sha256)
    return path


def cache_or_load_file(path: str, creator: Callable[[str], Any],
                       loader: Callable[[str], Any]) -> Any:
    """Load ``path`` with ``loader`` if it exists, else build it with ``creator``.

    ``creator(temp_path)`` must write the file to ``temp_path`` (a temporary name in the same
    folder, with the same extension) and return the content; the file is then renamed to
    ``path``, so a failed or interrupted ``creator`` leaves nothing under ``path``.

    Args:
        path: The cache file.
        creator: Builds the content and writes it to the path it receives.
        loader: Reads an existing cache file.

    Returns:
        What ``loader`` or ``creator`` returned.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from chainlet.dataset import cache_or_load_file
        >>> path = os.path.join(tempfile.mkdtemp(), 'x.npz')
        >>> def create(p):
        ...     np.savez(p, x=np.arange(3))
        ...     return 'created'
        >>> cache_or_load_file(path, create, lambda p: 'loaded')
        'created'
        >>> cache_or_load_file(path, create, lambda p: 'loaded')
        'loaded'
    """
    if os.path.exists(path):
        return loader(path)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_path(path, keep_extension=True) as temp:
        content = creator(temp)
    return content


def remove_dataset_directory(dataset_name: str) -> None:
    """Delete the cache folder of one dataset (downloads and converted arrays)."""
    shutil.rmtree(get_dataset_directory(dataset_name, create_directory=False),
                  ignore_errors=True)
