"""``serialize_keras_object`` / ``deserialize_keras_object``: any Keras object to a JSON-able
config and back, in Keras 3's format.

An object with ``get_config`` becomes ``{'module', 'class_name', 'config', 'registered_name'}``
(layers add ``build_config`` and ``name``, see :func:`chainlet.keras.engine.serialization.
serialize_layer`); the values of its config are serialized recursively, so a ``get_config``
may return layers, regularizers or functions as they are. A function becomes
``{'class_name': 'function', 'config': <registered name>}``; tuples, NumPy arrays and bytes are
tagged (``__tuple__``, ``__numpy__``, ``__bytes__``) so that they come back as what they were.

Deserializing finds a class or function by its ``registered_name``, then by ``class_name`` in
the active :class:`~chainlet.keras.saving.CustomObjectScope`, the registry and
``custom_objects``, then among chainlet.keras's own classes. A ``module`` is only ever imported
when it is part of ``chainlet.keras``: a config cannot make the loader import arbitrary code,
and nothing is ever unpickled.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> config = keras.saving.serialize_keras_object(keras.regularizers.L1(0.005))
    >>> config['class_name'], config['config']
    ('L1', {'l1': 0.005})
    >>> keras.saving.deserialize_keras_object(config)(np.ones(2, np.float32)).array
    array(0.01, dtype=float32)
"""
from __future__ import annotations

import importlib
import inspect
import types
from typing import Any, Optional

import numpy

from chainlet import backend
from chainlet.keras.saving import object_registration
from chainlet.keras.saving.object_registration import get_registered_name, get_registered_object

_PLAIN = (str, int, float, bool)


def _is_builtin(cls: Any) -> bool:
    return getattr(cls, '__module__', '').startswith('chainlet.')


def _function_config(fn: Any) -> dict:
    from chainlet.keras import activations
    name = get_registered_name(fn)
    if name == '<lambda>':
        raise ValueError('serialize_keras_object: a lambda cannot be serialized (only its name '
                         'would be saved); write a def and register it with '
                         '@keras.saving.register_keras_serializable()')
    if fn in activations._ACTIVATIONS.values():
        name = activations.serialize(fn)
    return {'module': getattr(fn, '__module__', None), 'class_name': 'function',
            'config': name, 'registered_name': 'function'}


def serialize_keras_object(obj: Any) -> Any:
    """A JSON-compatible config of ``obj`` (see the module docstring for the format).

    Args:
        obj: A layer, model, regularizer, initializer, constraint, loss, metric, optimizer,
            schedule, any object with ``get_config``, a function, or plain data (numbers,
            strings, lists, tuples, dicts, NumPy arrays) holding such objects.

    Returns:
        Plain Python data (dicts, lists, strings, numbers, ``None``).

    Raises:
        TypeError: ``obj`` is none of the above.
        ValueError: ``obj`` is a lambda.
    """
    if obj is None or isinstance(obj, _PLAIN):
        return obj
    if isinstance(obj, numpy.generic):
        return obj.item()
    if isinstance(obj, numpy.dtype):
        return obj.name
    if isinstance(obj, bytes):
        return {'class_name': '__bytes__', 'config': {'value': obj.decode('utf-8')}}
    if isinstance(obj, numpy.ndarray) or backend.is_array(obj):
        array = backend.to_cpu(obj)
        return {'class_name': '__numpy__', 'config': {'value': array.tolist(),
                                                      'dtype': array.dtype.name}}
    if isinstance(obj, tuple):
        return {'class_name': '__tuple__',
                'config': {'value': [serialize_keras_object(v) for v in obj]}}
    if isinstance(obj, list):
        return [serialize_keras_object(v) for v in obj]
    if isinstance(obj, dict):
        return serialize_dict(obj)
    if isinstance(obj, slice):
        return {'class_name': '__slice__', 'config': {'start': obj.start, 'stop': obj.stop,
                                                      'step': obj.step}}
    from chainlet.keras.engine.base_layer import Layer
    if isinstance(obj, Layer):
        from chainlet.keras.engine import serialization
        return serialization.serialize_layer(obj)
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
        return _function_config(obj)
    if inspect.isclass(obj):
        return {'module': obj.__module__, 'class_name': '__type__',
                'config': {'value': get_registered_name(obj)}, 'registered_name': None}
    if hasattr(obj, 'get_config'):
        cls = type(obj)
        return {'module': cls.__module__, 'class_name': cls.__name__,
                'config': serialize_dict(obj.get_config()),
                'registered_name': object_registration._registered_name_or_none(
                    cls, _is_builtin(cls))}
    raise TypeError(f'serialize_keras_object: cannot serialize {type(obj).__name__} '
                    f'{obj!r}: give it a get_config() method (and register its class with '
                    f'@keras.saving.register_keras_serializable())')


def serialize_dict(config: dict) -> dict:
    """``config`` with every value passed through :func:`serialize_keras_object`."""
    return {key: serialize_keras_object(value) for key, value in config.items()}


def _config_values(value: Any) -> Any:
    """Like :func:`serialize_keras_object` for the values of a layer's ``get_config``, but
    plain data keeps the JSON form it always had (tuples become lists, arrays nested lists,
    slices ``{'__slice__': [start, stop, step]}``), since layers read those back in their own
    ``__init__``; only objects (layers, regularizers, functions...) are serialized."""
    if isinstance(value, (list, tuple)):
        return [_config_values(v) for v in value]
    if isinstance(value, dict):
        return {k: _config_values(v) for k, v in value.items()}
    if isinstance(value, numpy.ndarray) or backend.is_array(value):
        return backend.to_cpu(value).tolist()
    if isinstance(value, slice):
        return {'__slice__': [value.start, value.stop, value.step]}
    return serialize_keras_object(value)


def _builtin_namespaces() -> list:
    from chainlet import keras
    from chainlet.keras import (activations, constraints, initializers, losses, metrics,
                                optimizers, regularizers, schedules)
    return [keras.layers, keras, regularizers, initializers, constraints, losses, metrics,
            optimizers, schedules, activations]


def _find(config: dict, custom_objects: Optional[dict]) -> Any:
    registered = config.get('registered_name')
    class_name: Any = config.get('class_name')  # whatever the (JSON) config holds
    for key in (registered, class_name):
        if key:
            found = get_registered_object(key, custom_objects)
            if found is not None:
                return found
    if class_name == 'Functional':
        from chainlet import keras
        return keras.Model
    for namespace in _builtin_namespaces():
        found = getattr(namespace, class_name, None)
        if inspect.isclass(found):
            return found
    module = config.get('module') or ''
    if module.startswith('chainlet.keras'):
        try:
            found = getattr(importlib.import_module(module), class_name, None)
        except ImportError:
            found = None
        if inspect.isclass(found):
            return found
    return None


def _function(name: str, module: Optional[str], custom_objects: Optional[dict]) -> Any:
    found = get_registered_object(name, custom_objects)
    if found is not None:
        return found
    from chainlet.keras import activations
    if name in activations._ACTIVATIONS:
        return activations._ACTIVATIONS[name]
    if module and module.startswith('chainlet.keras'):
        try:
            found = getattr(importlib.import_module(module), name, None)
        except ImportError:
            found = None
        if callable(found):
            return found
    raise ValueError(f'deserialize_keras_object: unknown function {name!r}; register it with '
                     f'@keras.saving.register_keras_serializable() or pass it in '
                     f'custom_objects={{{name!r}: {name}}}')


def _call_from_config(cls: type, inner: Any, custom_objects: Optional[dict]) -> Any:
    from_config = getattr(cls, 'from_config', None)
    if from_config is None:
        return cls(**inner)
    if 'custom_objects' in inspect.signature(from_config).parameters:
        return from_config(inner, custom_objects=custom_objects)
    return from_config(inner)


def deserialize_keras_object(config: Any, custom_objects: Optional[dict] = None,
                             safe_mode: bool = True, **kwargs: Any) -> Any:
    """The object that :func:`serialize_keras_object` described.

    Args:
        config: What :func:`serialize_keras_object` returned (or Keras's
            ``{'class_name', 'config'}`` form).
        custom_objects: ``{'name': class or function}`` for objects that are neither registered
            nor part of chainlet.keras.
        safe_mode: Accepted for compatibility; nothing is ever unpickled or imported from
            outside chainlet.keras.

    Returns:
        The object (plain data comes back as it is; a string names a custom object when one is
        registered under it).

    Raises:
        ValueError: The class or function is unknown (``Unknown object: X``).
    """
    if config is None or isinstance(config, (int, float, bool)):
        return config
    if isinstance(config, str):
        found = get_registered_object(config, custom_objects)
        return config if found is None else found
    if isinstance(config, (list, tuple)):
        return [deserialize_keras_object(v, custom_objects, safe_mode) for v in config]
    if not isinstance(config, dict):
        raise TypeError(f'deserialize_keras_object: expected a config dict, got '
                        f'{type(config).__name__}')
    if 'class_name' not in config or 'config' not in config:
        return {k: deserialize_keras_object(v, custom_objects, safe_mode)
                for k, v in config.items()}
    class_name, inner = config['class_name'], config['config']
    if class_name == '__tuple__':
        return tuple(deserialize_keras_object(v, custom_objects, safe_mode)
                     for v in inner['value'])
    if class_name == '__numpy__':
        return numpy.asarray(inner['value'], dtype=inner['dtype'])
    if class_name == '__bytes__':
        return inner['value'].encode('utf-8')
    if class_name == '__slice__':
        return slice(inner['start'], inner['stop'], inner['step'])
    if class_name == '__type__':
        name = inner['value'] if isinstance(inner, dict) else inner
        found = _find({'class_name': name, 'registered_name': name,
                       'module': config.get('module')}, custom_objects)
        if found is None:
            raise ValueError(f'deserialize_keras_object: unknown class {name!r}')
        return found
    if class_name == 'function':
        return _function(inner, config.get('module'), custom_objects)
    cls = _find(config, custom_objects)
    if cls is None:
        name = config.get('registered_name') or class_name
        raise ValueError(f'Unknown object: {name!r}; register it with '
                         f'@keras.saving.register_keras_serializable() or pass it in '
                         f'custom_objects={{{class_name!r}: {class_name}}}')
    from chainlet.keras.engine.base_layer import Layer
    if isinstance(cls, type) and issubclass(cls, Layer):
        from chainlet.keras.engine import serialization
        return serialization.deserialize_layer(config, custom_objects)
    with object_registration.CustomObjectScope(custom_objects):
        return _call_from_config(cls, dict(inner or {}), custom_objects)


__all__ = ['serialize_keras_object', 'deserialize_keras_object', 'serialize_dict']
