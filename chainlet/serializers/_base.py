"""Serializer base classes and the shared loading logic.

The protocol is Chainer's: an object's ``serialize(serializer)`` calls ``serializer(key, value)``
for each of its values and ``serializer[name]`` for each child. A *saving* serializer stores
``value`` and returns it; a *loading* one (a :class:`Deserializer`) loads into ``value`` in place
when it is an array, and returns what the object should keep otherwise.
"""
from __future__ import annotations

import copy
import os
from typing import TYPE_CHECKING, Any, Callable, Sequence, Union

import numpy

from chainlet import backend
from chainlet._atomic import atomic_path  # noqa: F401  (the writers import it from here)

if TYPE_CHECKING:  # typing.TypeIs exists from Python 3.13; mypy ships typing_extensions' stubs
    from typing_extensions import TypeIs


class AbstractSerializer:
    """The interface shared by serializers and deserializers.

    Subclasses implement ``__getitem__`` (a child whose keys are prefixed with ``name/``) and
    ``__call__(key, value)``.
    """

    def __getitem__(self, key: str) -> 'AbstractSerializer':
        raise NotImplementedError

    def __call__(self, key: str, value: Any) -> Any:
        raise NotImplementedError


class Serializer(AbstractSerializer):
    """Base class of the saving side: ``serializer(key, value)`` stores ``value``."""

    def save(self, obj: Any) -> None:
        """Save ``obj`` (anything with a ``serialize`` method) through this serializer."""
        obj.serialize(self)


class Deserializer(AbstractSerializer):
    """Base class of the loading side: ``deserializer(key, value)`` loads into ``value``."""

    def load(self, obj: Any) -> None:
        """Load ``obj`` (anything with a ``serialize`` method) from this deserializer."""
        obj.serialize(self)


class SerializationKeyError(KeyError):
    """A ``KeyError`` raised when keys of a file and of the object do not match.

    Its message is printed as is (a plain ``KeyError`` prints the ``repr`` of its message).
    """

    # The key, on the error raised for a key missing from the file (not set otherwise).
    missing_key: str

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ''


class CorruptFileError(ValueError, OSError):
    """A file that cannot be read as the expected format (truncated, corrupted, not an archive).

    It is both a ``ValueError`` and an ``OSError``; the message names the file.
    """


class UnsafeFileError(ValueError):
    """A file that would make a loader read *other* files.

    HDF5 can keep a dataset's bytes in another file (external storage), map it onto datasets
    of other files (virtual datasets) or link to them (external links); a model file from the
    internet could thus load any local file into a model's weights. Such files are refused
    with this ``ValueError``, whose message names the file and the entry. (A header that claims
    more data than its file holds is a :class:`CorruptFileError`.)
    """


# Shown (and pickled) under the package that exports them.
SerializationKeyError.__module__ = 'chainlet.serializers'
CorruptFileError.__module__ = 'chainlet.serializers'
UnsafeFileError.__module__ = 'chainlet.serializers'


IgnoreNames = Union[None, str, Callable[[str], bool], Sequence[Union[str, Callable[[str], bool]]]]


def _normalize_path(path: str, what: str) -> str:
    if not isinstance(path, str):
        raise TypeError(f'{what}: argument path: expected a str such as "updater/model:main/", '
                        f'got {type(path).__name__}')
    path = path.lstrip('/')
    if path and not path.endswith('/'):
        path += '/'
    return path


def _normalize_ignore_names(ignore_names: IgnoreNames, what: str) -> tuple:
    if ignore_names is None:
        return ()
    if isinstance(ignore_names, str) or callable(ignore_names):
        ignore_names = (ignore_names,)
    names = tuple(ignore_names)
    for name in names:
        if not (isinstance(name, str) or callable(name)):
            raise TypeError(f'{what}: argument ignore_names: expected names (str) or callables, '
                            f'got {type(name).__name__}')
    return names


class _LoadState:
    """What one loading pass shares between a deserializer and its children.

    In *session* mode (used by ``load_npz``/``load_hdf5``) copies into existing arrays are
    deferred until the object's ``serialize`` returned, so that a strict failure or an error in
    the middle leaves those arrays untouched. A missing key raises ``KeyError`` at once, as in
    Chainer, so that a ``serialize`` method can catch it to read an older format; only when it
    escapes does a second, *collecting* pass (missing keys recorded, nothing raised or copied)
    find every missing key for the message.
    """

    def __init__(self, source: str, session: bool, collect: bool = False) -> None:
        self.source = source
        self.session = session
        self.collect = collect
        self.visited: set = set()
        self.missing: list = []
        self.pending: list = []


def _copy_into(dst: Any, src: numpy.ndarray) -> None:
    if isinstance(dst, numpy.ndarray):
        numpy.copyto(dst, src)
    else:
        src = numpy.ascontiguousarray(numpy.broadcast_to(src, dst.shape), dtype=dst.dtype)
        dst.set(src)


_NONE = object()  # what a store's ``read`` returns for a stored None


class _ArchiveDeserializer(Deserializer):
    """Loading logic common to the NPZ and HDF5 deserializers.

    Subclasses provide ``_has(key)``, ``_read(key)`` (an ndarray, or ``_NONE`` for a stored
    ``None``) and ``_stored_keys()`` (every key of the archive).
    """

    _what = 'Deserializer'

    def _setup(self, path: str, strict: bool, ignore_names: IgnoreNames, source: str) -> None:
        self.path = _normalize_path(path, self._what)
        self.strict = bool(strict)
        self.ignore_names = ignore_names
        self._ignore = _normalize_ignore_names(ignore_names, self._what)
        self._state = _LoadState(source, session=False)

    def __getitem__(self, key: str) -> '_ArchiveDeserializer':
        child = copy.copy(self)
        child.path = self.path + key.strip('/') + '/'
        return child

    def _ignored(self, key: str) -> bool:
        for name in self._ignore:
            if name == key if isinstance(name, str) else name(key):
                return True
        return False

    def __call__(self, key: str, value: Any) -> Any:
        key = self.path + key.lstrip('/')
        state = self._state
        if self._ignore and self._ignored(key):
            state.visited.add(key)
            return value
        if not self._has(key):
            if self.strict:
                if state.collect:
                    state.missing.append(key)
                    return value
                error = SerializationKeyError(
                    f'{self._what}: key {key!r} is not in {state.source} (pass strict=False to '
                    f'skip missing keys)')
                error.missing_key = key
                raise error
            return value
        state.visited.add(key)
        data = self._read(key)
        if data is _NONE:
            return None
        if value is None:
            return data
        if backend.is_array(value):
            self._check_compatible(key, value, data)
            if state.session:
                state.pending.append((value, data))
            else:
                _copy_into(value, data)
            return value
        return self._to_scalar(key, value, data)

    def _check_compatible(self, key: str, value: Any, data: numpy.ndarray) -> None:
        try:
            ok_shape = numpy.broadcast_shapes(data.shape, value.shape) == value.shape
        except ValueError:
            ok_shape = False
        if not ok_shape:
            raise ValueError(f'{self._what}: {key!r} has shape {data.shape} in '
                             f'{self._state.source} but the target array has shape '
                             f'{value.shape}')
        if not numpy.can_cast(data.dtype, value.dtype, 'same_kind'):
            raise TypeError(f'{self._what}: {key!r} has dtype {data.dtype} in '
                            f'{self._state.source}, which cannot be loaded into an array of '
                            f'dtype {value.dtype}')

    def _to_scalar(self, key: str, value: Any, data: numpy.ndarray) -> Any:
        value_type = type(value)
        if data.dtype.kind == 'S' and value_type is str:
            return data.item().decode('utf-8')
        if data.dtype.kind == 'O' and data.ndim == 0:  # h5py returns str/bytes as objects
            item = data.item()
            return item.decode('utf-8') if isinstance(item, bytes) and value_type is str \
                else value_type(item)
        if issubclass(data.dtype.type, numpy.number) and \
                not (issubclass(data.dtype.type, numpy.integer) and value_type is int) and \
                not numpy.can_cast(data.dtype, value_type):
            raise TypeError(f'{self._what}: {key!r} has dtype {data.dtype} in '
                            f'{self._state.source}, which cannot be converted to '
                            f'{value_type.__name__} without loss')
        try:
            return value_type(data)
        except (TypeError, ValueError) as e:
            raise TypeError(f'{self._what}: {key!r} in {self._state.source} (shape '
                            f'{data.shape}, dtype {data.dtype}) cannot be converted to '
                            f'{value_type.__name__}: {e}') from None

    # -- sessions (used by load_npz / load_hdf5) --

    def _start_session(self) -> None:
        self._state.session = True

    def _run_session(self, obj: Any, what: str) -> None:
        """Load ``obj`` (``obj.serialize(self)``); copies are applied only if it succeeds."""
        self._start_session()
        try:
            obj.serialize(self)
        except SerializationKeyError as e:
            if not hasattr(e, 'missing_key'):
                raise
            self._state.pending.clear()
            missing, visited = self._collect_missing(obj)
            raise self._missing_error(what, missing or [e.missing_key], visited) from None
        self._finish_session(what)

    def _collect_missing(self, obj: Any) -> tuple:
        """Run ``obj.serialize`` once more, recording every missing key (nothing is copied)."""
        collector = copy.copy(self)
        collector._state = _LoadState(self._state.source, session=True, collect=True)
        try:
            obj.serialize(collector)
        except Exception:  # the first error is the one reported; this pass only adds keys
            pass
        collector._state.pending.clear()
        return collector._state.missing, collector._state.visited | self._state.visited

    def _missing_error(self, what: str, missing: list, visited: set) -> SerializationKeyError:
        # The stored keys left unread are named too: they usually show what went wrong.
        unexpected = sorted(
            k for k in self._stored_keys()
            if k.startswith(self.path) and k not in visited and not self._ignored(k))
        parts = [f'missing keys {missing}']
        if unexpected:
            parts.append(f'unexpected keys {unexpected}')
        hint = _path_hint(self.path, missing, unexpected)
        return SerializationKeyError(
            f'{what}: {"; ".join(parts)} (pass strict=False to ignore{hint})')

    def _finish_session(self, what: str) -> None:
        """Apply the deferred copies.

        As in Chainer, only keys that the object asks for and the file lacks are errors: a
        file may hold more than is loaded (a whole snapshot read into one model, a parent
        chain's file read into a child with ``path``).
        """
        state = self._state
        for dst, src in state.pending:
            _copy_into(dst, src)
        state.pending.clear()

    def _has(self, key: str) -> bool:
        raise NotImplementedError

    def _read(self, key: str) -> Any:
        raise NotImplementedError

    def _stored_keys(self) -> list:
        raise NotImplementedError


def _path_hint(path: str, missing: list, unexpected: list) -> str:
    """Suggest a ``path`` when every missing key is in the file under one common prefix."""
    if not missing or not unexpected:
        return ''
    rel = missing[0][len(path):]
    stored = set(unexpected)
    for key in unexpected:
        if key.endswith('/' + rel):
            prefix = key[:len(key) - len(rel)]
            if all(prefix + m[len(path):] in stored for m in missing):
                return f", or pass path={prefix!r} to load a sub-tree"
    return ''


def to_storable(key: str, value: Any, what: str) -> numpy.ndarray:
    """Return ``value`` as a NumPy array that can be stored without pickle.

    ``None`` becomes a 0-d object array holding ``None`` (as in Chainer); the writers turn it
    into their own pickle-free form.
    """
    if value is None:
        return numpy.asarray(None)
    if backend.is_cupy_array(value):
        return value.get()
    if hasattr(value, 'node') and hasattr(value, 'array'):  # a Variable: store its data
        return to_storable(key, value.array, what)
    arr = numpy.asarray(value)
    if arr.dtype == object:
        raise TypeError(f'{what}: the value of {key!r} is a {type(value).__name__}, which cannot '
                        f'be stored without pickle; store arrays, numbers, str or None')
    return arr


def is_none_array(arr: numpy.ndarray) -> bool:
    """True for the 0-d object array that stands for ``None``."""
    return arr.dtype == object and arr.ndim == 0 and arr.item() is None


def describe_file(file: Any) -> str:
    """A short name of a path or file object for error messages."""
    if isinstance(file, (str, os.PathLike)):
        return repr(os.fspath(file))
    name = getattr(file, 'name', None)
    return repr(name) if isinstance(name, str) else f'<{type(file).__name__} object>'


def is_path(file: Any) -> TypeIs[Union[str, os.PathLike]]:
    # (TypeIs: where False, mypy narrows a path-or-file argument to the file object)
    return isinstance(file, (str, os.PathLike))


def optional_module(name: str, extra: str, what: str) -> Any:
    """Import an optional dependency or raise ``ImportError`` naming the extra to install."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError as e:
        raise ImportError(f'{what} needs the optional package {name}; install it with '
                          f'pip install "chainlet-dl[{extra}]"') from e
