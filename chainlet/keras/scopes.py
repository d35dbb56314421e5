"""Keras 3's top-level context managers ``keras.device`` and ``keras.name_scope``, and
``keras.version``.

``device('gpu:0')`` makes that device current for chainlet (CuPy allocations and kernels go
there; a model's weights move with ``model.to_device``); ``'cpu'`` is NumPy. ``name_scope``
keeps Keras's stack of scope names (``current_path()``); chainlet's weights have no paths, so
the scopes do not rename anything.

Example:
    >>> from chainlet import keras
    >>> with keras.name_scope('block1') as scope:
    ...     scope.name
    'block1'
    >>> with keras.device('cpu'):
    ...     pass
"""
from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator, Optional

_STACK = threading.local()


def version() -> str:
    """The version of chainlet, whose ``chainlet.keras`` follows Keras 3's API."""
    import chainlet
    return chainlet.__version__


@contextlib.contextmanager
def device(device_name: str) -> Iterator[Any]:
    """Make ``device_name`` (``'cpu'``, ``'gpu'``, ``'gpu:N'``, ``'cuda:N'``) current.

    Raises:
        ValueError: Another kind of device name.
    """
    name = str(device_name).lower()
    kind, _, index = name.partition(':')
    if kind == 'cpu':
        spec: Any = '@numpy'
    elif kind in ('gpu', 'cuda'):
        spec = f'@cupy:{int(index or 0)}'
    else:
        raise ValueError(f"keras.device: argument device_name: expected 'cpu', 'gpu:N' or "
                         f"'cuda:N', got {device_name!r}")
    from chainlet.backend import using_device
    with using_device(spec) as dev:
        yield dev


class name_scope:
    """A named scope (``with keras.name_scope('encoder'):``), nested scopes joined by ``/``.

    Args:
        name: The scope's name.
        caller, deduplicate, override_parent: Keras's options, kept for its callers.
    """

    def __init__(self, name: str, caller: Any = None, deduplicate: bool = True,
                 override_parent: Optional[str] = None) -> None:
        if not isinstance(name, str) or '/' in name:
            raise ValueError(f'keras.name_scope: argument name: expected a str without "/", '
                             f'got {name!r}')
        self.name, self.caller = name, caller
        self.deduplicate, self.override_parent = deduplicate, override_parent

    def __enter__(self) -> 'name_scope':
        stack = getattr(_STACK, 'names', None)
        if stack is None:
            stack = _STACK.names = []
        stack.append(self.name)
        return self

    def __exit__(self, *exc: Any) -> None:
        _STACK.names.pop()


def current_path() -> str:
    """The names of the open scopes joined by ``/`` (``''`` outside any)."""
    return '/'.join(getattr(_STACK, 'names', None) or [])


__all__ = ['current_path', 'device', 'name_scope', 'version']
