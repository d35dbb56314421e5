"""The registries of thread-wide function and link hooks (``with SomeHook(): ...``).

A hook used as a context manager is registered for the current thread only, by name. Applying a
function (and calling a link) must cost nothing while no hook is active anywhere, so each
registry also keeps a process-wide count of active registrations: the hot paths test that one
integer and look at the thread's registry only when it is non-zero.

Example:
    >>> from chainlet import _hooks
    >>> class Hook:
    ...     pass
    >>> _hooks.functions.register('h', Hook())
    >>> list(_hooks.functions.hooks), _hooks.functions.active
    (['h'], 1)
    >>> _hooks.functions.unregister('h')
    >>> _hooks.functions.active
    0
"""
from __future__ import annotations

import collections
import threading
from typing import Any


class _ThreadHooks(threading.local):
    def __init__(self) -> None:
        self.hooks: collections.OrderedDict = collections.OrderedDict()


class HookRegistry:
    """Thread-local ``name -> hook`` registrations, with a process-wide count of them.

    Attributes:
        active: Number of hooks registered in any thread (0: nothing to look up).
    """

    __slots__ = ('_local', 'active', 'kind')

    def __init__(self, kind: str) -> None:
        self._local = _ThreadHooks()
        self.active = 0
        self.kind = kind

    @property
    def hooks(self) -> collections.OrderedDict:
        """The ordered dict of the hooks registered in this thread."""
        return self._local.hooks

    def register(self, name: str, hook: Any) -> None:
        hooks = self._local.hooks
        if name in hooks:
            raise KeyError(f'{self.kind} hook {name!r} is already registered in this thread')
        hooks[name] = hook
        self.active += 1

    def unregister(self, name: str) -> None:
        del self._local.hooks[name]
        self.active -= 1

    def collect(self, local: Any) -> list:
        """The thread's hooks, then ``local`` ones (an ordered dict or ``None``), in order."""
        hooks = list(self._local.hooks.values()) if self.active else []
        if local:
            hooks.extend(local.values())
        return hooks


functions = HookRegistry('function')
links = HookRegistry('link')
