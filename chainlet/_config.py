"""Global configuration with thread-local overrides.

``chainlet.global_config`` holds the defaults every thread sees. ``chainlet.config`` is what code
reads: an attribute set on it (directly or through :func:`using_config`) is visible only in the
thread that set it, and an attribute never set in this thread falls back to the global default.

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
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

_DEFAULTS = {
    'enable_backprop': True,
    'train': True,
    'debug': False,
    'type_check': True,
    'keep_graph_on_report': False,
    'dtype': None,
    # Chainer keys that ported scripts read or set; chainlet does not act on them.
    'use_cudnn': 'auto',
    'cudnn_deterministic': False,
    'autotune': False,
    'use_ideep': 'never',
    'lazy_grad_sum': False,
}


class GlobalConfig:
    """Process-wide configuration defaults (``chainlet.global_config``)."""

    def __init__(self) -> None:
        for key, value in _DEFAULTS.items():
            object.__setattr__(self, key, value)

    def show(self) -> str:
        """Return the configuration entries as ``name value`` lines."""
        return '\n'.join(f'{k:<22}{v}' for k, v in sorted(vars(self).items()))


global_config = GlobalConfig()


class _GlobalDefault:
    """Class-level descriptor of a well-known key: reads fall back to the global default.

    A non-data descriptor loses to the thread's own ``__dict__`` entry, so a value set in this
    thread wins, and a read of a key this thread never set costs one small call instead of the
    exception path of ``__getattr__``.
    """

    __slots__ = ('key',)

    def __init__(self, key: str) -> None:
        self.key = key

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        return getattr(global_config, self.key)


class LocalConfig(threading.local):
    """Thread-local view of the configuration (``chainlet.config``)."""

    def __getattr__(self, name: str) -> Any:
        # Only reached for keys without a descriptor (user-defined keys).
        try:
            return getattr(global_config, name)
        except AttributeError:
            raise AttributeError(
                f'chainlet.config has no entry {name!r}; set it with '
                f'chainlet.global_config.{name} = ... or using_config({name!r}, ...)') from None

    def show(self) -> str:
        """Return the effective configuration of this thread as ``name value`` lines."""
        keys = set(vars(global_config)) | set(vars(self))
        return '\n'.join(f'{k:<22}{getattr(self, k)}' for k in sorted(keys))


for _key in _DEFAULTS:
    setattr(LocalConfig, _key, _GlobalDefault(_key))

config = LocalConfig()

_MISSING = object()


@contextlib.contextmanager
def using_config(name: str, value: Any, config: LocalConfig = config) -> Iterator[None]:
    """Set ``config.<name>`` to ``value`` in this thread for the duration of a ``with`` block.

    Args:
        name: Configuration key, e.g. ``'train'`` or ``'enable_backprop'``.
        value: The value it takes inside the block.

    Example:
        >>> import chainlet
        >>> with chainlet.using_config('debug', True):
        ...     chainlet.config.debug
        True
    """
    old = config.__dict__.get(name, _MISSING)
    setattr(config, name, value)
    try:
        yield
    finally:
        if old is _MISSING:
            delattr(config, name)
        else:
            setattr(config, name, old)


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
