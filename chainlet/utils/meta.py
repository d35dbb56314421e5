"""``final`` methods: forbid (or deprecate) overriding a method in subclasses.

A class opts in by deriving from a base made by :func:`enable_final`; its metaclass looks at
every class created below it, and when a new class defines a method that a base marked with
:func:`final`, it raises ``TypeError`` (or warns ``DeprecationWarning`` for
``final(action=DeprecationWarning)``). The check runs once, when the subclass is defined.

Example:
    >>> class Base(enable_final()):
    ...     @final
    ...     def run(self):
    ...         return 1
    >>> class Child(Base):
    ...     def run(self):
    ...         return 2
    Traceback (most recent call last):
    ...
    TypeError: method 'run' is final.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

_MARK = '_chainlet_final_action'


def final(*args: Any, **kwargs: Any) -> Any:
    """Mark a method final: ``@final`` or ``@final(action=DeprecationWarning)``.

    Args:
        action: ``'error'`` (the default) makes overriding raise ``TypeError``;
            ``DeprecationWarning`` makes it warn.

    Returns:
        The method itself (marked), or a decorator when called with ``action``.
    """
    def mark(f: Callable, action: Any = 'error') -> Callable:
        if not callable(f):
            raise TypeError(f'final: expected a method, got {type(f).__name__}')
        if action != 'error' and action is not DeprecationWarning:
            raise ValueError(f"final: argument action: expected 'error' or "
                             f"DeprecationWarning, got {action!r}")
        setattr(f, _MARK, action)
        return f

    if len(args) == 1 and not kwargs:
        return mark(args[0])
    if args:
        raise TypeError('final: use @final or @final(action=...)')
    return lambda f: mark(f, **kwargs)


class _EnableFinal(type):
    """Metaclass that checks new classes against the ``final`` marks of their bases."""

    def __new__(mcs, name: str, bases: tuple, namespace: dict, **kwargs: Any) -> Any:
        for key in namespace:
            for base in bases:
                action = getattr(getattr(base, key, None), _MARK, None)
                if action == 'error':
                    raise TypeError(f'method {key!r} is final.')
                if action is DeprecationWarning:
                    warnings.warn(f'Overriding method {key!r} is deprecated.',
                                  DeprecationWarning, stacklevel=2)
        return super().__new__(mcs, name, bases, namespace, **kwargs)


def enable_final(base: Any = (), meta_base: Any = ()) -> type:
    """Return a base class under which :func:`final` marks are enforced.

    Args:
        base: A class or a tuple of classes the returned class derives from.
        meta_base: A metaclass or a tuple of metaclasses to combine with the checking one
            (needed when a descendant has its own metaclass, e.g. ``abc.ABCMeta``).
    """
    bases = tuple(base) if isinstance(base, (list, tuple)) else (base,)
    metas = tuple(meta_base) if isinstance(meta_base, (list, tuple)) else (meta_base,)
    meta = type('base_metaclass', (_EnableFinal,) + metas, {})
    return meta('enable_final_base', bases or (object,), {})
