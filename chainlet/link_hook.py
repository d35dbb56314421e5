"""The ``LinkHook`` base class: callbacks around the ``forward`` of links.

A link hook runs before and after :meth:`Link.forward <chainlet.Link.forward>` whenever a link is
called. Register it for one link with :meth:`Link.add_hook <chainlet.Link.add_hook>`, or for
every link called in this thread inside a ``with hook:`` block. When no hook is registered,
calling a link costs one extra test.

Example:
    >>> import numpy as np, chainlet, chainlet.links as L
    >>> class Shapes(chainlet.LinkHook):
    ...     name = 'Shapes'
    ...     def forward_postprocess(self, args):
    ...         print(type(args.link).__name__, args.args[0].shape, '->', args.out.shape)
    >>> model = chainlet.Sequential(L.Linear(4, 3), L.Linear(3, 2))
    >>> with Shapes():
    ...     y = model(np.zeros((5, 4), np.float32))
    Linear (5, 4) -> (5, 3)
    Linear (5, 3) -> (5, 2)
    Sequential (5, 4) -> (5, 2)
"""
from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any, Optional

from chainlet import _hooks

if TYPE_CHECKING:
    from chainlet.link import Link


def get_link_hooks() -> collections.OrderedDict:
    """Return the ordered dict ``name -> hook`` of the link hooks active in this thread."""
    return _hooks.links.hooks


# Chainer's private name for the same function (``chainer._get_link_hooks()``), which libraries
# built on Chainer call (Chainer Chemistry's saliency calculators).
_get_link_hooks = get_link_hooks


def any_link_hooks_registered() -> bool:
    """Whether a thread-wide link hook is registered in any thread: a cheap test (one integer)
    for code that calls links its own way and must otherwise skip :func:`get_link_hooks`."""
    return _hooks.links.active > 0


class _ForwardPreprocessCallbackArgs:
    """What :meth:`LinkHook.forward_preprocess` receives.

    Attributes:
        link: The link being called.
        forward_name: Name of the method about to run (``'forward'``).
        args: Positional arguments of the call (a tuple).
        kwargs: Keyword arguments of the call (a dict).
    """

    __slots__ = ('link', 'forward_name', 'args', 'kwargs')
    _fields: tuple = __slots__

    def __init__(self, link: 'Link', forward_name: str, args: tuple, kwargs: dict) -> None:
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        fields = ', '.join(f'{k}={getattr(self, k)!r}' for k in self._fields)
        return f'{type(self).__name__}({fields})'


class _ForwardPostprocessCallbackArgs(_ForwardPreprocessCallbackArgs):
    """What :meth:`LinkHook.forward_postprocess` receives: the fields of the preprocess
    arguments, and ``out``, the value ``forward`` returned."""

    __slots__ = ('out',)
    _fields = _ForwardPreprocessCallbackArgs._fields + __slots__

    def __init__(self, link: 'Link', forward_name: str, args: tuple, kwargs: dict,
                 out: Any) -> None:
        super().__init__(link, forward_name, args, kwargs)
        self.out = out


class LinkHook:
    """Base class of link hooks; override the callbacks you need (by default they do nothing).

    When a link is called, ``forward_preprocess`` of every hook active for it runs before
    ``forward`` and ``forward_postprocess`` after it: first the hooks registered for the thread
    (``with hook:``), then those of the link itself (``link.add_hook(hook)``), each group in
    order of registration. A hook of the link that has the name of a thread-wide hook replaces
    it for that link. If ``forward`` raises, no postprocess runs.

    Thread-wide hooks are kept per thread: a ``with hook:`` block in one thread does not hook
    the links called by another.

    Attributes:
        name: Registration name; it must be unique among the thread-wide hooks and among the
            hooks of one link. Subclasses set a default; ``add_hook(hook, name)`` may override
            it for one link.

    Example:
        >>> import numpy as np, chainlet, chainlet.links as L
        >>> class CountCalls(chainlet.LinkHook):
        ...     name = 'CountCalls'
        ...     def __init__(self):
        ...         self.calls = 0
        ...     def forward_preprocess(self, args):
        ...         self.calls += 1
        >>> layer = L.Linear(3, 2)
        >>> hook = CountCalls()
        >>> layer.add_hook(hook) is layer
        True
        >>> _ = layer(np.zeros((1, 3), np.float32))
        >>> _ = layer(np.zeros((1, 3), np.float32))
        >>> hook.calls
        2
        >>> layer.delete_hook('CountCalls')
        >>> with hook:                        # every link called in this thread
        ...     _ = layer(np.zeros((1, 3), np.float32))
        >>> hook.calls
        3
    """

    name = 'LinkHook'

    def __enter__(self) -> 'LinkHook':
        if self.name in _hooks.links.hooks:
            raise KeyError(f'{type(self).__name__}: a link hook named {self.name!r} is already '
                           f'active in this thread; give this one another name')
        _hooks.links.register(self.name, self)
        try:
            self.added(None)
        except BaseException:  # a hook that fails to start is not left registered
            self._unregister_from_thread()
            raise
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._unregister_from_thread()
        self.deleted(None)

    def _unregister_from_thread(self) -> None:
        _hooks.links.unregister(self.name)

    def added(self, link: Optional['Link']) -> None:
        """Called when the hook is registered.

        Args:
            link: The link it was added to, or ``None`` for a thread-wide hook (``with``).
        """

    def deleted(self, link: Optional['Link']) -> None:
        """Called when the hook is unregistered.

        Args:
            link: The link it was deleted from, or ``None`` at the end of a ``with`` block.
        """

    def forward_preprocess(self, args: _ForwardPreprocessCallbackArgs) -> None:
        """Called before ``forward`` of a hooked link.

        Args:
            args: Has ``link``, ``forward_name`` (``'forward'``), ``args`` (tuple of the
                positional arguments) and ``kwargs`` (dict of the keyword arguments).
        """

    def forward_postprocess(self, args: _ForwardPostprocessCallbackArgs) -> None:
        """Called after ``forward`` of a hooked link returned.

        Args:
            args: The fields of :meth:`forward_preprocess`'s argument, and ``out``, the value
                ``forward`` returned.
        """
