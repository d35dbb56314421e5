"""Where Keras configs find user classes and functions: the global registry and scopes.

Three sources are searched by :func:`get_registered_object`, in Keras's order: the objects of the
innermost active :class:`CustomObjectScope` (scopes nest; an inner scope sees the outer ones'
objects too), the global registry filled by :func:`register_keras_serializable`, then the
``custom_objects`` dict passed to the call. Scopes are thread-local, so a load in one thread
does not see another thread's scope; the registry is process-wide, as in Keras.

This module imports nothing from the rest of ``chainlet.keras``, so the getters of
``activations``, ``initializers``, ``regularizers``... can consult it without import cycles.

Example:
    >>> from chainlet.keras import saving
    >>> @saving.register_keras_serializable(package='Demo')
    ... def twice(x):
    ...     return 2 * x
    >>> saving.get_registered_name(twice)
    'Demo>twice'
    >>> saving.get_registered_object('Demo>twice') is twice
    True
    >>> del saving.get_custom_objects()['Demo>twice']
"""
from __future__ import annotations

import inspect
import threading
from typing import Any, Callable, Optional

# registered name ('package>name') -> object; get_custom_objects() hands out this very dict.
_GLOBAL_CUSTOM_OBJECTS: dict = {}
# object -> registered name (functions and classes are hashable by identity).
_GLOBAL_CUSTOM_NAMES: dict = {}


class _ScopeState(threading.local):
    def __init__(self) -> None:
        self.stack: list = []


_scopes = _ScopeState()


def get_custom_objects() -> dict:
    """The global dict of registered objects (``'package>name' -> object``).

    It is the registry itself: adding to it registers, ``clear()`` forgets everything
    registered so far (the Keras guide starts that way).
    """
    return _GLOBAL_CUSTOM_OBJECTS


def register_keras_serializable(package: str = 'Custom',
                                name: Optional[str] = None) -> Callable[[Any], Any]:
    """Decorator that registers a class or function under ``'package>name'``.

    Configs then record that name (``registered_name``), and loading finds the object without
    ``custom_objects``.

    Args:
        package: Namespace of the name (``'Custom'`` by default); must not contain ``>``.
        name: The name within the package (the object's ``__name__`` by default).

    Returns:
        The decorator; it returns the object unchanged.

    Raises:
        ValueError: ``package`` contains ``>``, a class has no ``get_config``, or the name is
            already taken by another object.
    """
    if not isinstance(package, str) or '>' in package:
        raise ValueError(f'register_keras_serializable: package must be a string without '
                         f'">", got {package!r}')

    def decorator(obj: Any) -> Any:
        base = name if name is not None else getattr(obj, '__name__', None)
        if not base:
            raise ValueError(f'register_keras_serializable: {obj!r} has no __name__; give '
                             f'name=')
        key = f'{package}>{base}'
        if inspect.isclass(obj) and not hasattr(obj, 'get_config'):
            raise ValueError(f'register_keras_serializable: cannot register class '
                             f'{obj.__name__}: it has no get_config() method')
        old = _GLOBAL_CUSTOM_OBJECTS.get(key)
        if old is not None and old is not obj and \
                getattr(old, '__qualname__', None) != getattr(obj, '__qualname__', ''):
            raise ValueError(f'register_keras_serializable: the name {key!r} is already '
                             f'registered for {old!r}')
        _GLOBAL_CUSTOM_OBJECTS[key] = obj
        _GLOBAL_CUSTOM_NAMES[obj] = key
        return obj
    return decorator


def get_registered_name(obj: Any) -> str:
    """The name ``obj`` was registered under, else its ``__name__`` (or its class's name)."""
    try:
        registered = _GLOBAL_CUSTOM_NAMES.get(obj)
    except TypeError:  # unhashable
        registered = None
    if registered is not None and _GLOBAL_CUSTOM_OBJECTS.get(registered) is obj:
        return registered
    return getattr(obj, '__name__', type(obj).__name__)


def _registered_name_or_none(cls: Any, builtin: bool) -> Optional[str]:
    """The ``registered_name`` a config records: the registry's name for a registered
    object, ``None`` for chainlet.keras's own classes, else the class name."""
    name = get_registered_name(cls)
    if '>' in name:
        return name
    return None if builtin else name


def _scope_objects() -> dict:
    return _scopes.stack[-1] if _scopes.stack else {}


def get_registered_object(name: str, custom_objects: Optional[dict] = None,
                          module_objects: Optional[dict] = None) -> Any:
    """The object called ``name`` in the active scopes, the registry, ``custom_objects`` or
    ``module_objects`` (searched in that order); ``None`` when none has it."""
    if not isinstance(name, str):
        return None
    for source in (_scope_objects(), _GLOBAL_CUSTOM_OBJECTS, custom_objects or {},
                   module_objects or {}):
        if name in source:
            return source[name]
    return None


class CustomObjectScope:
    """Context manager that makes ``custom_objects`` visible to every deserialization inside.

    Args:
        *args: Dicts ``{'name': class or function}`` (several are merged; ``None`` is
            skipped).
        custom_objects: One more such dict by keyword (Keras's argument name).

    Example:
        >>> from chainlet.keras import saving
        >>> def cube(x):
        ...     return x ** 3
        >>> with saving.custom_object_scope({'cube': cube}):
        ...     saving.get_registered_object('cube') is cube
        True
        >>> saving.get_registered_object('cube') is None
        True
    """

    def __init__(self, *args: Optional[dict], custom_objects: Optional[dict] = None) -> None:
        merged: dict = {}
        for objects in args + (custom_objects,):
            if objects is None:
                continue
            if not isinstance(objects, dict):
                raise TypeError(f'CustomObjectScope: expected dicts of custom objects, got '
                                f'{type(objects).__name__}')
            merged.update(objects)
        self.custom_objects = merged

    def __enter__(self) -> 'CustomObjectScope':
        combined = dict(_scope_objects())
        combined.update(self.custom_objects)
        _scopes.stack.append(combined)
        return self

    def __exit__(self, *exc: Any) -> None:
        _scopes.stack.pop()


custom_object_scope = CustomObjectScope

__all__ = ['CustomObjectScope', 'custom_object_scope', 'get_custom_objects',
           'get_registered_name', 'get_registered_object', 'register_keras_serializable']
