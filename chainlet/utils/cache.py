"""``cached_property``: compute a property of an object once per backprop mode.

Distributions (and other objects built from ``Variable``\\ s) expose derived quantities as
properties that run chainlet functions. Caching them saves recomputation, but a value computed
under ``no_backprop_mode`` has no graph and must not be handed out when a graph is wanted, so
the cache keeps one value per value of ``chainlet.config.enable_backprop``.

Example:
    >>> import numpy as np, chainlet
    >>> class Doubler:
    ...     def __init__(self, x):
    ...         self.x = x
    ...     @cached_property
    ...     def y(self):
    ...         return self.x * 2
    >>> d = Doubler(chainlet.Variable(np.array([1.0])))
    >>> d.y is d.y
    True
    >>> with chainlet.no_backprop_mode():
    ...     d.y.creator is None
    True
"""
from __future__ import annotations

import functools
from typing import Any, Callable, cast

from chainlet._config import config


class cached_property:
    """A read-only property whose value is computed once per ``config.enable_backprop``.

    The values are stored in the instance's ``__dict__`` under the property's name (a dict
    keyed by the backprop flag), so each instance has its own cache.

    Args:
        func: The getter, called with the instance.
    """

    __name__: str  # the getter's, set by update_wrapper

    def __init__(self, func: Callable[[Any], Any]) -> None:
        # (cast: update_wrapper copies the attributes onto any object; typeshed wants a callable)
        functools.update_wrapper(cast(Any, self), func)
        self.func = func

    def __get__(self, obj: Any, cls: Any = None) -> Any:
        if obj is None:
            return self
        caches = obj.__dict__.setdefault(self.__name__, {})
        flag = bool(config.enable_backprop)
        try:
            return caches[flag]
        except KeyError:
            value = caches[flag] = self.func(obj)
            return value

    def __set__(self, obj: Any, value: Any) -> None:
        # Being a data descriptor keeps lookups coming here instead of the cache dict.
        raise AttributeError(f'attribute {self.__name__!r} of {type(obj).__name__} is read-only')
