"""Saving and loading serializable objects as ``.safetensors`` files (needs ``safetensors``).

Install the extra with ``pip install "chainlet-dl[safetensors]"``; ``import chainlet`` never
imports the package. The keys are those of :func:`~chainlet.serializers.save_npz` (``l1/W``,
``updater/model:main/predictor/l1/b``...), so a file converts between the two formats key for
key, and PyTorch tooling (``safetensors.torch.load_file``) reads the arrays under those names.

The format holds only numeric tensors and a string-to-string metadata table, and never runs
code when read. What is not a numeric tensor goes to the metadata, as JSON, under keys that start
with ``__chainlet__/``:

- ``__chainlet__/none_keys``: the keys whose value is ``None`` (the entry ``save_npz`` writes);
- ``__chainlet__/strings``: ``str`` and ``bytes`` values (a persistent tag, a trainer's JSON log);
- ``__chainlet__/crc32``: a CRC-32 of each tensor's bytes. The format has no checksum of its own,
  and a flipped bit in a weight must raise, not load (``save_npz`` has the zip CRC-32). Files of
  other writers have no such entry and are read unchecked.

Loading from a path memory-maps the file (``safetensors.safe_open``): only the tensors that the
object asks for are read. A file object is read into memory first.

Example:
    >>> import os, tempfile, numpy as np, chainlet
    >>> from chainlet import serializers
    >>> import pytest; _ = pytest.importorskip('safetensors')  # the example needs safetensors
    >>> link = chainlet.Link()
    >>> with link.init_scope():
    ...     link.W = chainlet.Parameter(np.ones((2, 2), np.float32))
    >>> path = os.path.join(tempfile.mkdtemp(), 'link.safetensors')
    >>> serializers.save_safetensors(path, link)
    >>> link.W.array[...] = 0
    >>> serializers.load_safetensors(path, link)
    >>> float(link.W.array.sum())
    4.0
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import struct
import zlib
from typing import IO, Any, Iterator, Mapping, Optional, Union, cast

import numpy

from chainlet.serializers._base import (
    _NONE, CorruptFileError, IgnoreNames, _ArchiveDeserializer, atomic_path, describe_file,
    is_none_array, is_path, optional_module)
from chainlet.serializers.npz import NONE_KEYS_ENTRY, DictionarySerializer

FileLike = Union[str, os.PathLike, IO[bytes]]

STRINGS_ENTRY = '__chainlet__/strings'
CRC32_ENTRY = '__chainlet__/crc32'
_RESERVED_PREFIX = '__chainlet__/'

# The NumPy dtypes the format stores (bfloat16 and the float8 types have no NumPy dtype).
_STORABLE = frozenset(['bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64',
                       'uint64', 'float16', 'float32', 'float64', 'complex64'])


def _safetensors(what: str) -> Any:
    """``safetensors.numpy`` (which also holds ``safe_open``), or an ImportError naming the
    extra."""
    optional_module('safetensors', 'safetensors', what)
    return importlib.import_module('safetensors.numpy')


def _crc(arr: numpy.ndarray) -> int:
    data = numpy.ascontiguousarray(arr).reshape(-1).view(numpy.uint8)
    # (cast: an ndarray is a buffer, but NumPy's stubs before 2.5 do not declare __buffer__)
    return zlib.crc32(cast(Any, data)) & 0xFFFFFFFF


def _encode(arrays: Mapping[str, numpy.ndarray], metadata: Optional[Mapping[str, str]],
            what: str) -> tuple:
    """Split host arrays into the tensors and the metadata table of a file."""
    tensors: dict = {}
    none_keys: list = []
    strings: dict = {}
    crcs: dict = {}
    for key, arr in arrays.items():
        if key == '__metadata__' or key.startswith(_RESERVED_PREFIX):
            raise ValueError(f'{what}: the key {key!r} is reserved by the safetensors format '
                             f'or by chainlet; rename the value')
        arr = numpy.asarray(arr)
        if is_none_array(arr):
            none_keys.append(key)
        elif arr.dtype.kind in 'US':
            # bytes are kept as latin-1 text, which maps every byte to one character
            values = [v if arr.dtype.kind == 'U' else v.decode('latin-1')
                      for v in arr.ravel().tolist()]
            strings[key] = {'dtype': arr.dtype.str, 'shape': list(arr.shape), 'values': values}
        elif arr.dtype.name in _STORABLE:
            # C order and little-endian, as the format stores them (ascontiguousarray would
            # turn a 0-d array into 1-d)
            arr = arr.astype(arr.dtype.newbyteorder('<'), order='C', copy=False)
            tensors[key] = arr
            crcs[key] = _crc(arr)
        else:
            raise TypeError(f'{what}: the value of {key!r} has dtype {arr.dtype}, which '
                            f'safetensors cannot store (it stores {", ".join(sorted(_STORABLE))}'
                            f', and chainlet adds str, bytes and None)')
    meta = {}
    for name, value in (metadata or {}).items():
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError(f'{what}: argument metadata: expected str keys and values, got '
                            f'{type(name).__name__}: {type(value).__name__}')
        if name.startswith(_RESERVED_PREFIX):
            raise ValueError(f'{what}: argument metadata: keys starting with '
                             f'{_RESERVED_PREFIX!r} are reserved, got {name!r}')
        meta[name] = value
    if none_keys:
        meta[NONE_KEYS_ENTRY] = json.dumps(none_keys)
    if strings:
        meta[STRINGS_ENTRY] = json.dumps(strings)
    meta[CRC32_ENTRY] = json.dumps(crcs)
    return tensors, meta


def write_safetensors(file: FileLike, arrays: Mapping[str, Any],
                      metadata: Optional[Mapping[str, str]] = None) -> None:
    """Write a flat dict of arrays to a ``.safetensors`` file (atomically for a path).

    The lower layer of :func:`save_safetensors`, for callers that already hold the arrays
    (Keras weights): values are made host arrays as ``save_npz`` does, ``None`` and strings go
    to the metadata (see the module docstring).

    Args:
        file: A path (written atomically) or a binary file object.
        arrays: Keys mapped to arrays (NumPy or CuPy), numbers, str, bytes or ``None``.
        metadata: Extra str-to-str metadata for the file's header (e.g. ``{'format': 'pt'}``,
            which some PyTorch tools expect).

    Example:
        >>> import io, numpy as np
        >>> import pytest; st = pytest.importorskip('safetensors.numpy')
        >>> from chainlet.serializers import write_safetensors
        >>> buf = io.BytesIO()
        >>> write_safetensors(buf, {'W': np.eye(2, dtype=np.float32)}, {'format': 'pt'})
        >>> st.load(buf.getvalue())['W']
        array([[1., 0.],
               [0., 1.]], dtype=float32)
    """
    what = 'write_safetensors'
    st = _safetensors(what)
    s = DictionarySerializer()
    for key, value in arrays.items():
        s(key, value)
    _write(st, file, s.target, metadata, what)


def _write(st: Any, file: FileLike, target: dict, metadata: Optional[Mapping[str, str]],
           what: str) -> None:
    tensors, meta = _encode(target, metadata, what)
    if is_path(file):
        with atomic_path(file) as tmp:
            try:
                st.save_file(tensors, tmp, metadata=meta)
            except OSError:
                raise
            except Exception as e:  # SafetensorError: its I/O errors are no OSError
                raise OSError(f'{what}: cannot write {os.fspath(file)!r}: {e}') from e
    else:
        file.write(st.save(tensors, metadata=meta))


def save_safetensors(file: FileLike, obj: Any,
                     metadata: Optional[Mapping[str, str]] = None) -> None:
    """Save the values of ``obj`` (a link, an optimizer, a trainer...) to a ``.safetensors`` file.

    ``obj.serialize`` runs first, into memory (CuPy arrays are copied to the host); the file is
    then written atomically: to a temporary file in the same folder, flushed to disk, then
    renamed over ``file``. If anything fails, the previous file is left intact. Nothing is
    pickled: ``None`` and strings are kept in the header's metadata.

    Args:
        file: A path (no suffix is added) or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        metadata: Extra str-to-str entries for the file's metadata.

    Raises:
        ImportError: ``safetensors`` is not installed.
        TypeError: a value has a dtype the format cannot store (``complex128``, ``float128``,
            objects).

    Example:
        >>> import io, numpy as np, chainlet
        >>> from chainlet import serializers
        >>> import pytest; st = pytest.importorskip('safetensors.numpy')
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.b = chainlet.Parameter(np.ones(3, np.float32))
        >>> buf = io.BytesIO()
        >>> serializers.save_safetensors(buf, link)
        >>> sorted(st.load(buf.getvalue()))
        ['b']
    """
    what = 'save_safetensors'
    st = _safetensors(what)
    s = DictionarySerializer()
    obj.serialize(s)
    _write(st, file, s.target, metadata, what)


class SafetensorsDeserializer(_ArchiveDeserializer):
    """Deserializer that loads values from a ``.safetensors`` file.

    It follows the rules of :class:`~chainlet.serializers.NpzDeserializer` (arrays are copied in
    place, ``None`` targets receive the stored array, scalars are converted to the target's type)
    and reads ``None`` and strings from the metadata entries that :func:`save_safetensors`
    writes. Tensors are read when asked for, and checked against their stored CRC-32.

    Args:
        tensors: An open ``safetensors.safe_open(..., framework='numpy')`` handle, or a dict of
            arrays (e.g. the result of ``safetensors.numpy.load_file``).
        path: Prefix of the keys to read (e.g. ``'updater/model:main/'``).
        strict: If ``True``, a missing key raises ``KeyError``; otherwise ``value`` is returned.
        ignore_names: Keys (full, with ``path``) or predicates on keys to skip.
        metadata: The file's metadata; taken from ``tensors.metadata()`` when ``None``.

    Example:
        >>> import numpy as np
        >>> from chainlet.serializers import SafetensorsDeserializer
        >>> d = SafetensorsDeserializer({'l1/W': np.ones(2)},
        ...                             metadata={'__chainlet__/none_keys': '["t"]'})
        >>> w = np.zeros(2, np.float32)
        >>> _ = d['l1']('W', w)
        >>> w
        array([1., 1.], dtype=float32)
        >>> d('t', 0) is None
        True
    """

    _what = 'SafetensorsDeserializer'

    def __init__(self, tensors: Any, path: str = '', strict: bool = True,
                 ignore_names: IgnoreNames = None,
                 metadata: Optional[Mapping[str, str]] = None) -> None:
        self.tensors = tensors
        self._setup(path, strict, ignore_names, 'the file')
        if metadata is None and hasattr(tensors, 'metadata'):
            metadata = tensors.metadata()
        metadata = dict(metadata or {})
        self._keys = frozenset(tensors.keys())
        # What the string entries may expand to: their own JSON text, a few times over.
        self._strings_budget = 8 * len(metadata.get(STRINGS_ENTRY, '')) + (1 << 16)
        try:
            self._none_keys = frozenset(json.loads(metadata.get(NONE_KEYS_ENTRY, '[]')))
            self._strings = json.loads(metadata.get(STRINGS_ENTRY, '{}'))
            self._crcs = json.loads(metadata.get(CRC32_ENTRY, '{}'))
        except (ValueError, TypeError, RecursionError) as e:
            raise CorruptFileError(f'{self._what}: the chainlet metadata of '
                                   f'{self._state.source} is not valid JSON (truncated or '
                                   f'corrupted file?): {e}') from e

    def _has(self, key: str) -> bool:
        return key in self._keys or key in self._none_keys or key in self._strings

    def _read(self, key: str) -> Any:
        if key in self._none_keys:
            return _NONE
        if key in self._strings:
            return self._read_string(key)
        source = self._state.source
        if hasattr(self.tensors, 'get_tensor'):
            try:
                data = self.tensors.get_tensor(key)
            except TypeError:  # a dtype NumPy lacks (bfloat16, float8)
                dtype = self.tensors.get_slice(key).get_dtype()
                raise TypeError(f'{self._what}: {key!r} in {source} has dtype {dtype}, which '
                                f'NumPy cannot represent; convert it to float32 with the tool '
                                f'that wrote the file') from None
            except Exception as e:  # SafetensorError: a bad offset, a short file
                raise CorruptFileError(f'{self._what}: tensor {key!r} of {source} cannot be '
                                       f'read (truncated or corrupted file?): {e}') from e
        else:
            data = self.tensors[key]
        data = numpy.asarray(data)
        expected = self._crcs.get(key)
        if expected is not None and _crc(numpy.ascontiguousarray(data)) != int(expected):
            raise CorruptFileError(f'{self._what}: tensor {key!r} of {source} fails its CRC-32 '
                                   f'check (corrupted, or changed after chainlet wrote it)')
        return data

    def _read_string(self, key: str) -> numpy.ndarray:
        entry = self._strings[key]
        try:
            dtype = numpy.dtype(entry['dtype'])
            values = entry['values'] if dtype.kind == 'U' else \
                [v.encode('latin-1') for v in entry['values']]
            if dtype.kind not in 'SU' or dtype.itemsize * len(values) > self._strings_budget:
                raise ValueError(f'dtype {dtype} for {len(values)} values is not a string '
                                 f'entry of the size its text allows')
            return numpy.array(values, dtype=dtype).reshape(entry['shape'])
        except (KeyError, TypeError, ValueError, UnicodeError, AttributeError) as e:
            raise CorruptFileError(f'{self._what}: the string entry {key!r} of '
                                   f'{self._state.source} is malformed: {e}') from e

    def _stored_keys(self) -> list:
        return sorted(self._keys) + sorted(self._none_keys) + sorted(self._strings)


def _header_metadata(data: bytes, what: str) -> dict:
    # The format: an 8-byte little-endian header length, then a JSON header whose optional
    # "__metadata__" entry is the str-to-str table (safetensors.numpy.load drops it).
    try:
        (size,) = struct.unpack('<Q', data[:8])
        header = json.loads(data[8:8 + size])
        return dict(header.get('__metadata__') or {})
    except (struct.error, ValueError, TypeError, AttributeError, RecursionError) as e:
        raise CorruptFileError(f'{what}: the file is not a readable .safetensors file '
                               f'(truncated or corrupted?): {e}') from e


@contextlib.contextmanager
def _open(file: FileLike, what: str) -> Iterator[tuple]:
    """Yield ``(tensors, metadata)`` of a file: a memory-mapped handle for a path."""
    st = _safetensors(what)
    if is_path(file):
        path = os.fspath(file)
        if os.path.isdir(path):
            raise IsADirectoryError(f'{what}: {path!r} is a folder, not a .safetensors file')
        try:
            handle = st.safe_open(path, framework='numpy')
        except (FileNotFoundError, PermissionError):
            raise
        except Exception as e:  # SafetensorError (not an OSError) for a bad header
            raise CorruptFileError(f'{what}: the file is not a readable .safetensors file '
                                   f'(truncated or corrupted?): {e}') from e
        with handle as f:
            yield f, dict(f.metadata() or {})
        return
    data = file.read()
    metadata = _header_metadata(data, what)
    try:
        tensors = st.load(data)
    except Exception as e:
        raise CorruptFileError(f'{what}: the file is not a readable .safetensors file '
                               f'(truncated or corrupted?): {e}') from e
    yield tensors, metadata


def read_safetensors(file: FileLike) -> tuple:
    """Read every entry of a ``.safetensors`` file: ``(arrays, metadata)``.

    The counterpart of :func:`write_safetensors`: ``None`` and strings come back from the
    chainlet metadata entries, CRC-32s are checked, and ``metadata`` holds the other entries.

    Args:
        file: A path or a binary file object.

    Returns:
        tuple: ``(arrays, metadata)``, a dict of host arrays (or ``None``) and a dict of str.

    Example:
        >>> import io, numpy as np
        >>> import pytest; _ = pytest.importorskip('safetensors')
        >>> from chainlet.serializers import read_safetensors, write_safetensors
        >>> buf = io.BytesIO()
        >>> write_safetensors(buf, {'W': np.zeros(2), 'tag': 'v1', 'gone': None}, {'k': 'v'})
        >>> _ = buf.seek(0)
        >>> arrays, metadata = read_safetensors(buf)
        >>> sorted(arrays), str(arrays['tag']), arrays['gone'], metadata
        (['W', 'gone', 'tag'], 'v1', None, {'k': 'v'})
    """
    source = describe_file(file)
    what = f'read_safetensors({source})'
    with _open(file, what) as (tensors, metadata):
        d = SafetensorsDeserializer(tensors, metadata=metadata)
        d._state.source = source
        arrays = {}
        for key in d._stored_keys():
            data = d._read(key)
            arrays[key] = None if data is _NONE else data
    extra = {k: v for k, v in metadata.items() if not k.startswith(_RESERVED_PREFIX)}
    return arrays, extra


def load_safetensors(file: FileLike, obj: Any, path: str = '', strict: bool = True,
                     ignore_names: IgnoreNames = None) -> None:
    """Load the values of ``obj`` from a ``.safetensors`` file.

    The file may come from :func:`save_safetensors` or from any other writer (PyTorch's
    ``safetensors.torch.save_file``, ``safetensors.numpy.save_file``) whose tensor names are
    chainlet's keys. Keys are checked as in :func:`~chainlet.serializers.load_npz`: with
    ``strict=True`` one ``KeyError`` lists every missing key (and the file's unused keys), and
    no existing array of ``obj`` is modified. A path is memory-mapped.

    Args:
        file: A path or a binary file object.
        obj: An object with a ``serialize(serializer)`` method.
        path: Sub-tree of the file to load, e.g. ``'updater/model:main/'``.
        strict: Check keys as described above; ``False`` skips missing keys.
        ignore_names: Keys (full, with ``path``) or predicates ``f(key) -> bool`` to skip.

    Raises:
        ImportError: ``safetensors`` is not installed.
        KeyError: (:class:`SerializationKeyError`) keys do not match in strict mode.
        CorruptFileError: the file is truncated, corrupted or not a ``.safetensors`` file.

    Example:
        >>> import io, numpy as np, chainlet
        >>> from chainlet import serializers
        >>> import pytest; st = pytest.importorskip('safetensors.numpy')
        >>> link = chainlet.Link()
        >>> with link.init_scope():
        ...     link.W = chainlet.Parameter(np.zeros(2, np.float32))
        >>> data = st.save({'W': np.array([1.5, 2.5], np.float32)})  # written by another tool
        >>> serializers.load_safetensors(io.BytesIO(data), link)
        >>> link.W.array
        array([1.5, 2.5], dtype=float32)
    """
    source = describe_file(file)
    what = f'load_safetensors({source})'
    with _open(file, what) as (tensors, metadata):
        d = SafetensorsDeserializer(tensors, path=path, strict=strict,
                                    ignore_names=ignore_names, metadata=metadata)
        d._state.source = source
        d._run_session(obj, what)
