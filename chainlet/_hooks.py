"""The registries of thread-wide function and link hooks (``with SomeHook(): ...``).

A hook used as a context manager is registered for the current thread only, by name. Applying a
function (and calling a link) must cost nothing while no hook is active anywhere, so each
registry also keeps a process-wide count of active registrations: the hot paths test that one
integer and look at the thread's registry only when it is non-zero. :data:`observers` counts the
registrations of both kinds: while it is non-zero, ``FunctionNode.apply`` takes its observed path,
which also lets output nodes know their Variables (what graph exporters such as onnx_chainer read,
under a link hook, through ``VariableNode.get_variable_or_none``).

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


class _CountedHooks(collections.OrderedDict):
    """The ordered dict of one thread's hooks, which keeps its registry's counts.

    Code written for Chainer registers hooks by assigning into the dict that
    ``chainer.get_function_hooks()`` / ``chainer._get_link_hooks()`` return (Chainer Chemistry's
    saliency calculators do), so every way of adding or removing an entry counts.
    """

    def __init__(self, registry: 'HookRegistry') -> None:
        super().__init__()
        self._registry = registry

    def __setitem__(self, name: Any, hook: Any) -> None:
        new = name not in self
        super().__setitem__(name, hook)
        if new:
            self._registry._count(1)

    def __delitem__(self, name: Any) -> None:
        super().__delitem__(name)
        self._registry._count(-1)

    def pop(self, name: Any, *default: Any) -> Any:
        if name in self:
            hook = self[name]
            del self[name]
            return hook
        return super().pop(name, *default)

    def popitem(self, last: bool = True) -> tuple:
        item = super().popitem(last)
        self._registry._count(-1)
        return item

    def clear(self) -> None:
        n = len(self)
        super().clear()
        self._registry._count(-n)

    def __reduce__(self) -> Any:
        # A copy (pickle, copy.copy) is a plain ordered dict: only the live registry counts.
        return collections.OrderedDict, (list(self.items()),)


class _ThreadHooks(threading.local):
    def __init__(self, registry: 'HookRegistry') -> None:
        self.hooks: collections.OrderedDict = _CountedHooks(registry)


class Counter:
    """A process-wide count of registrations (``active``), shared by several registries."""

    __slots__ = ('active',)

    def __init__(self) -> None:
        self.active = 0


class HookRegistry:
    """Thread-local ``name -> hook`` registrations, with a process-wide count of them.

    Args:
        kind: ``'function'`` or ``'link'``, for error messages.
        also_counted_in: A :class:`Counter` that counts this registry's registrations too.

    Attributes:
        active: Number of hooks registered in any thread (0: nothing to look up).
    """

    __slots__ = ('_local', 'active', 'kind', '_also')

    def __init__(self, kind: str, also_counted_in: Counter) -> None:
        self.active = 0
        self.kind = kind
        self._also = also_counted_in
        self._local = _ThreadHooks(self)

    @property
    def hooks(self) -> collections.OrderedDict:
        """The ordered dict of the hooks registered in this thread."""
        return self._local.hooks

    def register(self, name: str, hook: Any) -> None:
        hooks = self._local.hooks
        if name in hooks:
            raise KeyError(f'{self.kind} hook {name!r} is already registered in this thread')
        hooks[name] = hook  # counted by the dict

    def unregister(self, name: str) -> None:
        del self._local.hooks[name]

    def _count(self, n: int) -> None:
        self.active += n
        self._also.active += n

    def collect(self, local: Any) -> list:
        """The thread's hooks, then ``local`` ones (an ordered dict or ``None``), in order."""
        hooks = list(self._local.hooks.values()) if self.active else []
        if local:
            hooks.extend(local.values())
        return hooks


#: Thread-wide hooks of either kind registered in any thread.
observers = Counter()
functions = HookRegistry('function', observers)
links = HookRegistry('link', observers)
