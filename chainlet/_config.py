"""Global configuration with thread-local overrides, as Chainer's ``chainer.configuration``.

``chainlet.global_config`` (a :class:`GlobalConfig`) holds the defaults every thread sees.
``chainlet.config`` (a :class:`LocalConfig`) is what code reads: an attribute set on it (directly
or through :func:`using_config`) is visible only in the thread that set it, and an attribute
never set in this thread falls back to the global default. Both objects are also published as
``chainlet.configuration.config`` / ``global_config``, the module Chainer code imports.

Chainer's keys and defaults are kept, so code that reads ``config.use_cudnn`` or
``config.lazy_grad_sum`` runs unchanged; those chainlet does not act on are listed in
``docs/differences.md``. Defaults that Chainer reads from ``CHAINER_*`` environment variables are
read from ``CHAINLET_*`` first, then ``CHAINER_*`` (``CHAINLET_DTYPE=float64``,
``CHAINER_DEBUG=1``, ...).

LocalConfig subclasses ``threading.local``, so its instance ``__dict__`` *is* the thread's own
settings: the hot path in ``FunctionNode.apply`` reads that dict directly, and the well-known
keys are class-level descriptors falling back to the global object, which is cheaper than the
exception path of ``__getattr__``.

Example:
    >>> import chainlet
    >>> chainlet.config.train
    True
    >>> with chainlet.using_config('train', False):
    ...     chainlet.config.train
    False
    >>> with chainlet.no_backprop_mode():
    ...     chainlet.config.enable_backprop
    False
    >>> chainlet.get_dtype()
    dtype('float32')
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings
from typing import IO, TYPE_CHECKING, Any

import numpy


class _Mixed16:
    """Type of :data:`mixed16`: a dtype-like sentinel for 16/32-bit mixed precision.

    It carries ``dtype = float16``, so ``numpy.dtype(mixed16)`` is float16: where nothing asks
    for more, mixed16 computes in float16; :func:`get_dtype` lets a caller map it to another
    dtype (e.g. float32 for batch-normalization statistics).
    """

    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return "dtype('mixed16')"

    def __reduce__(self) -> str:
        return 'mixed16'  # pickles as a reference to the module-level singleton


mixed16 = _Mixed16()
"""Dtype-like object selecting 16/32-bit mixed precision: ``config.dtype = chainlet.mixed16``."""


def _env(name: str) -> tuple[str, str] | None:
    """``(variable, value)`` of ``CHAINLET_<name>``, else of ``CHAINER_<name>``, else None."""
    for prefix in ('CHAINLET_', 'CHAINER_'):
        value = os.environ.get(prefix + name)
        if value is not None:
            return prefix + name, value
    return None


def _env_str(name: str, default: str) -> str:
    found = _env(name)
    return default if found is None else found[1]


def _env_flag(name: str, default: bool) -> bool:
    found = _env(name)
    if found is None:
        return default
    variable, value = found
    try:
        return bool(int(value))
    except ValueError:
        raise ValueError(f'environment variable {variable}: expected 0 or 1, '
                         f'got {value!r}') from None


def _env_dtype() -> Any:
    found = _env('DTYPE')
    if found is None:
        return numpy.dtype(numpy.float32)
    variable, value = found
    if value == 'mixed16':
        return mixed16
    if value not in ('float16', 'float32', 'float64'):
        raise TypeError(f'environment variable {variable}: expected float16, float32, float64 '
                        f'or mixed16, got {value!r}')
    return numpy.dtype(value)


def _default_values() -> dict[str, Any]:
    """Chainer 7's configuration keys and their defaults (environment variables applied)."""
    return {
        'autotune': False,
        'check_deterministic': False,
        'compute_mode': None,
        'cudnn_deterministic': False,
        'cudnn_fast_batch_normalization': _env_flag('CUDNN_FAST_BATCH_NORMALIZATION', False),
        'debug': _env_flag('DEBUG', False),
        'dtype': _env_dtype(),
        'enable_backprop': True,
        'in_recomputing': False,
        'keep_graph_on_report': _env_flag('KEEP_GRAPH_ON_REPORT', False),
        'lazy_grad_sum': _env_flag('LAZY_GRAD_SUM', False),
        'schedule_func': None,
        'train': True,
        'type_check': _env_flag('TYPE_CHECK', True),
        'use_cudnn': _env_str('USE_CUDNN', 'auto'),
        'use_cudnn_tensor_core': 'auto',
        'use_ideep': _env_str('USE_IDEEP', 'never'),
        'use_static_graph': True,
        'warn_nondeterministic': False,
        '_will_recompute': False,
    }


_KEYS = tuple(_default_values())


def _print_attrs(obj: Any, keys: list[str], file: IO[str] | None) -> None:
    # Chainer's layout: names padded to the longest one, one space, then the value.
    out = sys.stdout if file is None else file
    width = max((len(key) for key in keys), default=0)
    for key in keys:
        out.write(f'{key} {" " * (width - len(key))}{getattr(obj, key)}\n')


class GlobalConfig:
    """Process-wide configuration defaults (``chainlet.global_config``).

    A plain object: any attribute may be set. A fresh instance answers ``None`` for Chainer's
    well-known keys and holds nothing else; ``chainlet.global_config`` is filled with the
    defaults when chainlet is imported.
    """

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name not in _LocalConfigNames.names:
            _add_key(name)

    if TYPE_CHECKING:  # for the type checker only: keys are set at run time
        def __getattr__(self, name: str) -> Any: ...

    def show(self, file: IO[str] | None = None) -> None:
        """Print the entries, one ``name value`` line each, sorted by name.

        Args:
            file: Where to write (``sys.stdout`` when ``None``).
        """
        _print_attrs(self, sorted(vars(self)), file)


class _GlobalDefault:
    """Class-level descriptor of a key on :class:`LocalConfig`: reads fall back to the global
    object.

    A non-data descriptor loses to the thread's own ``__dict__`` entry, so a value set in this
    thread wins. Every key ever set on a :class:`GlobalConfig` gets one, which is why
    LocalConfig needs no ``__getattr__``: that hook would slow down every attribute access on
    the object, the ``__dict__`` read of ``FunctionNode.apply`` included (by about 0.2 us).
    """

    __slots__ = ('key',)

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        # Any attribute access on a threading.local costs a lookup of the thread's dict; the
        # common case (chainlet.config itself) reads the module's global object instead.
        if obj is config:
            return getattr(global_config, self.key)
        if obj is None:
            return self
        return getattr(obj._global, self.key)


class LocalConfig(threading.local):
    """Thread-local view of a :class:`GlobalConfig` (``chainlet.config``).

    Setting an attribute changes it in the current thread only; reading one that this thread
    never set returns the global value; deleting one restores the global value (and raises
    ``AttributeError`` if this thread had not set it).

    Args:
        global_config: The defaults to fall back to (``chainlet.global_config`` when omitted).
    """

    def __init__(self, global_config: GlobalConfig | None = None) -> None:
        # threading.local runs __init__ again, with the same argument, in every new thread.
        self._global = _default_global if global_config is None else global_config

    def show(self, file: IO[str] | None = None) -> None:
        """Print the effective configuration of this thread, one ``name value`` line each.

        Args:
            file: Where to write (``sys.stdout`` when ``None``).

        Example:
            >>> import io, chainlet
            >>> out = io.StringIO()
            >>> chainlet.config.show(out)
            >>> 'enable_backprop' in out.getvalue()
            True
        """
        local = set(vars(self))
        local.discard('_global')
        _print_attrs(self, sorted(set(vars(self._global)) | local), file)


class _LocalConfigNames:
    # Names a global key must not shadow on LocalConfig (its methods, dunders, _global).
    names = frozenset(vars(LocalConfig)) | {'_global'}


def _add_key(name: str) -> None:
    if name not in vars(LocalConfig) and not name.startswith('__'):
        setattr(LocalConfig, name, _GlobalDefault(name))


for _key in _KEYS:
    setattr(GlobalConfig, _key, None)

global_config = GlobalConfig()
for _key, _value in _default_values().items():
    setattr(global_config, _key, _value)
_default_global = global_config

config = LocalConfig(global_config)

_MISSING = object()


class _ConfigContext(contextlib.ContextDecorator):
    """What :func:`using_config` returns: a ``with`` block (or a decorator) that sets one key.

    A class rather than a generator context manager: the engine enters one per backward, and
    this costs a third as much.
    """

    __slots__ = ('config', 'name', 'value', 'old')

    def __init__(self, name: str, value: Any, config: Any) -> None:
        self.config, self.name, self.value = config, name, value

    def _recreate_cm(self) -> '_ConfigContext':
        # Used as a decorator: each call gets its own saved value (calls may nest or recurse).
        return _ConfigContext(self.name, self.value, self.config)

    def __enter__(self) -> None:
        self.old = self.config.__dict__.get(self.name, _MISSING)
        setattr(self.config, self.name, self.value)

    def __exit__(self, *exc: Any) -> None:
        if self.old is _MISSING:
            delattr(self.config, self.name)
        else:
            setattr(self.config, self.name, self.old)


def using_config(name: str, value: Any,
                 config: LocalConfig = config) -> contextlib.AbstractContextManager[None]:
    """Set ``config.<name>`` to ``value`` in this thread for the duration of a ``with`` block.

    Args:
        name: Configuration key, e.g. ``'train'`` or ``'enable_backprop'``.
        value: The value it takes inside the block.
        config: The configuration to change (``chainlet.config`` by default).

    Returns:
        A context manager, also usable as a function decorator.

    Example:
        >>> import chainlet
        >>> with chainlet.using_config('debug', True):
        ...     chainlet.config.debug
        True
    """
    return _ConfigContext(name, value, config)


def no_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Disable graph construction in this thread inside a ``with`` block.

    Functions applied inside the block produce Variables with no creator, so nothing is retained
    for backward. Use it for evaluation and inference.

    Example:
        >>> import numpy as np, chainlet
        >>> x = chainlet.Variable(np.ones(3, np.float32))
        >>> with chainlet.no_backprop_mode():
        ...     y = x * 2.0
        >>> y.creator is None
        True
    """
    return using_config('enable_backprop', False)


def force_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Enable graph construction inside a ``with`` block, even within :func:`no_backprop_mode`."""
    return using_config('enable_backprop', True)


class DebugMode:
    """Deprecated context manager (Chainer 2): ``with DebugMode(flag):`` is
    ``with using_config('debug', flag):``, which new code should use.

    Args:
        debug: The debug mode inside the block.
    """

    def __init__(self, debug: bool) -> None:
        warnings.warn('chainlet.DebugMode is deprecated; use chainlet.using_config("debug", ...) '
                      'instead', DeprecationWarning, stacklevel=2)
        self._using = using_config('debug', debug)

    def __enter__(self) -> None:
        self._using.__enter__()

    def __exit__(self, *exc_info: Any) -> None:
        self._using.__exit__(*exc_info)


def get_dtype(dtype: Any = None, map_mixed16: Any = None) -> numpy.dtype:
    """Resolve a dtype, defaulting to ``chainlet.config.dtype`` (Chainer's ``get_dtype``).

    Args:
        dtype: A dtype specifier; ``None`` means ``chainlet.config.dtype``.
        map_mixed16: What :data:`mixed16` stands for here (float16 when ``None``), e.g.
            float32 for statistics that need the range.

    Returns:
        The ``numpy.dtype``.

    Example:
        >>> import numpy as np, chainlet
        >>> with chainlet.using_config('dtype', chainlet.mixed16):
        ...     chainlet.get_dtype(), chainlet.get_dtype(map_mixed16=np.float32)
        (dtype('float16'), dtype('float32'))
    """
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16 and map_mixed16 is not None:
        dtype = map_mixed16
    return numpy.dtype(dtype)
