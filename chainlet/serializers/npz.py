"""Saving and loading links, optimizers and other serializable objects as NumPy ``.npz`` files.

Example:
    >>> import io, numpy as np, chainlet
    >>> from chainlet import serializers
    >>> class Affine(chainlet.Link):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.init_scope():
    ...             self.W = chainlet.Parameter(np.arange(6, dtype=np.float32).reshape(2, 3))
    >>> buf = io.BytesIO()
    >>> serializers.save_npz(buf, Affine())
    >>> model = Affine()
    >>> model.W.array[...] = 0
    >>> _ = buf.seek(0)
    >>> serializers.load_npz(buf, model)
    >>> model.W.array
    array([[0., 1., 2.],
           [3., 4., 5.]], dtype=float32)
"""
from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import struct
import tokenize
import zipfile
import zlib
from typing import IO, Any, Iterator, Mapping, Optional, Union

import numpy
import numpy.lib.format

from chainlet.serializers._base import (
    _NONE, CorruptFileError, IgnoreNames, Serializer, _ArchiveDeserializer, atomic_path,
    describe_file, is_none_array, is_path, to_storable)

# Entry listing the keys whose value is None: ``None`` has no pickle-free .npy form.
NONE_KEYS_ENTRY = '__chainlet__/none_keys'

# Everything that reading damaged bytes can raise inside zipfile/NumPy. Besides the obvious
# ones: NumPy 1.x re-parses a broken .npy header with ``tokenize`` (TokenError, SyntaxError);
# zipfile raises NotImplementedError for an unknown "version needed" field and RuntimeError for
# a set "encrypted" flag; struct.error and KeyError come from inconsistent directory fields.
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError,
                pickle.UnpicklingError, tokenize.TokenError, SyntaxError, NotImplementedError,
                RuntimeError, struct.error, KeyError, IndexError)

FileLike = Union[str, os.PathLike, IO[bytes]]


class _NoneArrayUnpickler(pickle.Unpickler):
    """Unpickles only what NumPy writes for an object array: its reconstruction functions.

    Chainer saves a ``None`` value (an uninitialized parameter, an unset state) as a 0-d
    object array, which ``.npy`` stores as a pickle. Loading it with ``allow_pickle`` would let
    a file run code; this unpickler refuses every global but NumPy's array constructors, so
    such entries load safely, and the result is accepted only if it is ``None``.
    """

    _ALLOWED = {('multiarray', '_reconstruct'), ('numpy', 'ndarray'), ('numpy', 'dtype')}

    def find_class(self, module: str, name: str) -> Any:
        if module.split('.')[0] != 'numpy' or (module.rsplit('.', 1)[-1], name) not in \
                self._ALLOWED:
            raise pickle.UnpicklingError(f'global {module}.{name} is not allowed')
        if module in ('numpy.core.multiarray', 'numpy._core.multiarray'):
            # NumPy 2 renamed numpy.core (and warns on the old name); files use either.
            for candidate in ('numpy._core.multiarray', 'numpy.core.multiarray'):
                try:
                    return getattr(importlib.import_module(candidate), name)
                except (ImportError, AttributeError):
                    continue
        return super().find_class(module, name)


def _read_none_entry(npz: Any, key: str) -> bool:
    """Whether the entry ``key`` of an ``NpzFile`` is a pickled object array holding only
    ``None`` (Chainer's way of saving ``None``), read without running any code."""
    zf = getattr(npz, 'zip', None)
    if zf is None:
        return False
    try:
        with zf.open(key + '.npy') as f:
            version = numpy.lib.format.read_magic(f)
            reader = numpy.lib.format.read_array_header_1_0 if version == (1, 0) \
                else numpy.lib.format.read_array_header_2_0
            _, _, dtype = reader(f)
            if dtype != object:
                return False
            value = _NoneArrayUnpickler(f).load()
    except _READ_ERRORS:
        return False
    return isinstance(value, numpy.ndarray) and value.dtype == object and \
        all(item is None for item in value.flat)


# How much larger than its compressed bytes a zip member may be (deflate expands at most about
# 1032-fold), and what a member may claim beyond that, so that a crafted size or .npy header is
# refused before NumPy or zipfile allocate it (a bare MemoryError otherwise).
_MAX_EXPANSION = 1100
_SLACK_BYTES = 1 << 16


def check_zip(zf: zipfile.ZipFile, source: str, what: str) -> None:
    """Refuse a zip archive whose members claim more bytes than the archive can hold.

    Each member's uncompressed size may exceed its compressed size only for a compressed
    member, and then at most ``_MAX_EXPANSION`` fold; a member's compressed bytes must lie in
    the archive. ``zipfile`` allocates what a member claims when it is read whole.

    Args:
        zf: The open archive.
        source: The file's name for messages.
        what: The caller's name for messages.

    Raises:
        chainlet.serializers.CorruptFileError: (a ``ValueError``) naming the file and member.
    """
    end = getattr(zf, 'start_dir', None)  # where the directory starts: members lie before it
    for info in zf.infolist():
        ratio = 1 if info.compress_type == zipfile.ZIP_STORED else _MAX_EXPANSION
        if (end is not None and info.compress_size > end) or \
                info.file_size > ratio * info.compress_size + _SLACK_BYTES:
            raise CorruptFileError(f'{what}: member {info.filename!r} of {source} claims '
                                   f'{info.file_size} bytes from {info.compress_size} stored '
                                   f'bytes; the archive is malformed')


def check_npz_entry(npz: Any, key: str, source: str, what: str) -> None:
    """Refuse an ``.npz`` entry whose ``.npy`` header claims more data than the entry holds.

    NumPy allocates the array that the header describes before it reads the data, so a
    ten-byte entry claiming shape ``(2**40,)`` would raise a bare ``MemoryError``. Entries of
    a plain dict and entries NumPy will refuse anyway (pickled objects) are left alone.

    Raises:
        chainlet.serializers.CorruptFileError: the claim is impossible, or the header cannot
            be parsed (the message names the file and the entry).
    """
    zf = getattr(npz, 'zip', None)
    if zf is None:
        return
    try:
        info = zf.getinfo(key + '.npy')
    except KeyError:
        return  # NumPy reports the missing entry
    ratio = 1 if info.compress_type == zipfile.ZIP_STORED else _MAX_EXPANSION
    if info.file_size > ratio * info.compress_size + _SLACK_BYTES:
        raise CorruptFileError(f'{what}: entry {key!r} of {source} claims {info.file_size} '
                               f'bytes from {info.compress_size} stored bytes; the archive is '
                               f'malformed')
    try:
        with zf.open(info) as f:
            version = numpy.lib.format.read_magic(f)
            reader = numpy.lib.format.read_array_header_1_0 if version == (1, 0) \
                else numpy.lib.format.read_array_header_2_0
            shape, _, dtype = reader(f)
    except (*_READ_ERRORS, RecursionError, MemoryError) as e:
        raise CorruptFileError(f'{what}: the .npy header of entry {key!r} of {source} is '
                               f'malformed: {type(e).__name__}: {e}') from e
    if dtype.hasobject:
        return  # never unpickled (allow_pickle=False): the reader says so
    nbytes = int(numpy.prod(shape, dtype=object)) * dtype.itemsize
    if nbytes > info.file_size:
        raise CorruptFileError(f'{what}: entry {key!r} of {source} claims shape {shape} of '
                               f'{dtype} ({nbytes} bytes) but holds only {info.file_size} '
                               f'bytes; the archive is malformed')


def check_npz(npz: Any, source: str, what: str) -> None:
    """Check every entry of an open ``NpzFile`` (:func:`check_zip`, :func:`check_npz_entry`)
    before any is read.

    Example:
        >>> import io, numpy as np
        >>> from chainlet.serializers import check_npz
        >>> buf = io.BytesIO()
        >>> np.savez(buf, W=np.zeros(3))
        >>> _ = buf.seek(0)
        >>> with np.load(buf) as npz:
        ...     check_npz(npz, 'buf', 'example')  # a sound archive passes
    """
    zf = getattr(npz, 'zip', None)
    if zf is None:
        return
    check_zip(zf, source, what)
    for key in npz.files:
        check_npz_entry(npz, key, source, what)


class DictionarySerializer(Serializer):
    """Serializer that collects the values of an object into a flat dictionary of arrays.

    Keys are paths such as ``l1/W``: ``serializer['l1']`` returns a child that prefixes its keys
    with ``l1/``. Arrays are copied to NumPy, scalars become 0-d arrays, and ``None`` becomes a
    0-d object array holding ``None``. :func:`save_npz` writes ``target`` to a file.

    Args:
        target: The dictionary to fill (a new one when ``None``).
        path: Prefix of every key written by this serializer.

    Example:
        >>> import numpy as np
        >>> from chainlet.serializers import DictionarySerializer
        >>> s = DictionarySerializer()
        >>> _ = s['l1']('W', np.ones(2, np.float32))
        >>> _ = s('t', 3)
        >>> sorted(s.target)
        ['l1/W', 't']
        >>> s.target['t']
        array(3)
    """

    def __init__(self, target: Optional[dict] = None, path: str = '') -> None:
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> 'DictionarySerializer':
        key = key.strip('/')
        return DictionarySerializer(self.target, self.path + key + '/')

    def __call__(self, key: str, value: Any) -> Any:
        key = self.path + key.lstrip('/')
        self.target[key] = to_storable(key, value, 'DictionarySerializer')
        return value


class NpzDeserializer(_ArchiveDeserializer):
    """Deserializer that loads values from an ``.npz`` archive (or any dict of arrays).

    Called as ``deserializer(key, value)``, it

    - copies the stored array into ``value`` when ``value`` is an array (NumPy or CuPy),
    - returns the stored array when ``value`` is ``None`` (an uninitialized parameter, which
      :meth:`chainlet.Link.serialize` then initializes with that shape),
    - returns the stored number converted to ``type(value)`` for Python and NumPy scalars,
    - returns ``None`` when ``None`` was stored.

    Args:
        npz: The result of ``numpy.load(file, allow_pickle=False)`` or a dict of arrays.
        path: Prefix of the keys to read (e.g. ``'updater/model:main/'`` in a trainer snapshot).
        strict: If ``True``, a missing key raises ``KeyError``; otherwise ``value`` is returned.
        ignore_names: Keys (full, with ``path``) or predicates on keys to skip.

    Example:
        >>> import numpy as np
        >>> from chainlet.serializers import NpzDeserializer
        >>> d = NpzDeserializer({'l1/W': np.ones(2), 't': np.asarray(3)})
        >>> w = np.zeros(2, np.float32)
        >>> _ = d['l1']('W', w)
        >>> w
        array([1., 1.], dtype=float32)
        >>> d('t', 0)
        3
    """

    _what = 'NpzDeserializer'

    def __init__(self, npz: Mapping[str, Any], path: str = '', strict: bool = True,
                 ignore_names: IgnoreNames = None) -> None:
        self.npz = npz
        self._setup(path, strict, ignore_names, 'the archive')
        # NpzFile lists its entries cheaply; a Mapping's ``in`` might read the entry.
        self._keys = frozenset(npz.files if hasattr(npz, 'files') else npz.keys())
        self._none_keys: frozenset[str] = frozenset()
        if NONE_KEYS_ENTRY in self._keys:
            self._none_keys = frozenset(str(k) for k in self._read(NONE_KEYS_ENTRY).ravel())

    def _has(self, key: str) -> bool:
        return key in self._keys or key in self._none_keys

    def _read(self, key: str) -> Any:
        if key in self._none_keys:
            return _NONE
        check_npz_entry(self.npz, key, self._state.source, self._what)
        try:
            data = self.npz[key]
        except _READ_ERRORS as e:
            if 'allow_pickle' in str(e):
                if _read_none_entry(self.npz, key):
                    return _NONE
                raise CorruptFileError(
                    f'{self._what}: entry {key!r} of {self._state.source} holds pickled Python '
                    f'objects other than None, which are never loaded (allow_pickle is always '
                    f'False)') from e
            raise CorruptFileError(f'{self._what}: entry {key!r} of {self._state.source} '
                                   f'cannot be read (truncated or corrupted file?): {e}') from e
        data = numpy.asarray(data)
        return _NONE if is_none_array(data) else data

    def _stored_keys(self) -> list:
        keys = [k for k in self._keys if k != NONE_KEYS_ENTRY]
        return keys + sorted(self._none_keys)


def _write_npz(f: IO[bytes], target: dict, compression: bool) -> None:
    arrays = {}
    none_keys = []
    for key, arr in target.items():
        if is_none_array(arr):
            none_keys.append(key)
        else:
            arrays[key] = arr
    if none_keys:
        arrays[NONE_KEYS_ENTRY] = numpy.array(none_keys, dtype=str)
    mode = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
    # Written entry by entry (as numpy.savez does) so that no key can clash with an argument.
    with zipfile.ZipFile(f, mode='w', compression=mode, allowZip64=True) as zf:
        for key, arr in arrays.items():
            with zf.open(key + '.npy', 'w', force_zip64=True) as entry:
                numpy.lib.format.write_array(entry, numpy.asanyarray(arr), allow_pickle=False)


def save_npz(file: FileLike, obj: Any, compression: bool = True) -> None:
    """Save the values of ``obj`` (a link, an optimizer, ...) to an ``.npz`` archive.

    ``obj.serialize`` runs first, into memory; the file is then written atomically: to a
    temporary file in the same folder, flushed to disk, then renamed over ``file``. If anything
    fails (including serialization), the previous file is left intact.

    Args:
        file: A path (written atomically; no ``.npz`` suffix is added) or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        compression: Compress the archive (``zipfile.ZIP_DEFLATED``).

    Example:
        >>> import os, tempfile, numpy as np, chainlet
        >>> from chainlet import serializers
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.b = chainlet.Parameter(np.ones(3, np.float32))
        >>> path = os.path.join(tempfile.mkdtemp(), 'link.npz')
        >>> serializers.save_npz(path, link)
        >>> sorted(np.load(path).files)
        ['b']
    """
    s = DictionarySerializer()
    obj.serialize(s)
    if is_path(file):
        with atomic_path(file) as tmp:
            with open(tmp, 'wb') as f:
                _write_npz(f, s.target, compression)
    else:
        _write_npz(file, s.target, compression)


def serialize(obj: Any) -> dict:
    """Serialize ``obj`` into a plain dict of NumPy arrays (what :func:`save_npz` writes).

    Args:
        obj: An object with a ``serialize(serializer)`` method.

    Returns:
        dict: Keys such as ``'l1/W'`` mapped to host arrays.

    Example:
        >>> import numpy as np, chainlet
        >>> from chainlet.serializers import npz
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.b = chainlet.Parameter(np.ones(2, np.float32))
        >>> npz.serialize(link)
        {'b': array([1., 1.], dtype=float32)}
    """
    s = DictionarySerializer()
    obj.serialize(s)
    return s.target


@contextlib.contextmanager
def _open_npz(file: FileLike, what: str) -> Iterator[Any]:
    if is_path(file):
        # Opened here so that it is closed even when numpy.load fails half-way.
        with open(file, 'rb') as f:
            with _open_npz(f, what) as npz:
                yield npz
        return
    try:
        npz = numpy.load(file, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (IsADirectoryError, PermissionError):
        raise
    except _READ_ERRORS as e:
        raise CorruptFileError(f'{what}: the file is not a readable .npz archive (truncated or '
                               f'corrupted?): {type(e).__name__}: {e}') from e
    if not hasattr(npz, 'files'):
        raise CorruptFileError(f'{what}: the file holds a single .npy array, not an .npz '
                               f'archive')
    try:
        check_zip(npz.zip, describe_file(file), what)
        yield npz
    finally:
        npz.close()


def load_npz(file: FileLike, obj: Any, path: str = '', strict: bool = True,
             ignore_names: IgnoreNames = None) -> None:
    """Load the values of ``obj`` from an ``.npz`` archive written by :func:`save_npz`.

    Pickled entries are never loaded (``allow_pickle=False``). With ``strict=True`` every key
    that ``obj`` asks for must be in the file, and every key of the file under ``path`` must be
    used; otherwise one ``KeyError`` lists all missing and unexpected keys, and no existing
    array of ``obj`` is modified (arrays are copied only after all keys were checked).

    Args:
        file: A path or a binary file object.
        obj: An object with a ``serialize(serializer)`` method (a link, an optimizer, ...).
        path: Sub-tree of the file to load, e.g. ``'updater/model:main/'`` for the model in a
            trainer snapshot, or ``'l1/'`` to load one child link of a saved chain.
        strict: Check keys as described above; ``False`` skips missing and extra keys.
        ignore_names: Keys (full, with ``path``) or predicates ``f(key) -> bool`` to skip.

    Raises:
        KeyError: (:class:`SerializationKeyError`) keys do not match in strict mode.
        CorruptFileError: the file is truncated, corrupted or not an ``.npz`` archive (a
            ``ValueError`` and ``OSError``; the message names the file).

    Example:
        >>> import io, numpy as np, chainlet
        >>> from chainlet import serializers
        >>> def make():
        ...     link = chainlet.Link()
        ...     with link.init_scope():
        ...         link.W = chainlet.Parameter(np.zeros(2, np.float32))
        ...     return link
        >>> buf = io.BytesIO()
        >>> serializers.save_npz(buf, make())
        >>> _ = buf.seek(0)
        >>> other = chainlet.Chain()
        >>> with other.init_scope():
        ...     other.a = make()
        ...     other.b = make()
        >>> serializers.load_npz(buf, other)
        Traceback (most recent call last):
        ...
        chainlet.serializers.SerializationKeyError: load_npz(<BytesIO object>): missing \
keys ['a/W', 'b/W']; unexpected keys ['W'] (pass strict=False to ignore)
    """
    source = describe_file(file)
    what = f'load_npz({source})'
    with _open_npz(file, what) as npz:
        d = NpzDeserializer(npz, path=path, strict=strict, ignore_names=ignore_names)
        d._state.source = source
        d._run_session(obj, what)
