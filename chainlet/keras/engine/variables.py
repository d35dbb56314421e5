"""``keras.Variable``: a chainlet :class:`~chainlet.Parameter` with Keras 3's variable API.

Layer weights (``Layer.add_weight``) and metric state (``Metric.add_variable``) are such
variables. Being Parameters, they are what chainlet optimizers, serializers and ``to_device``
already handle; the Keras names on top are:

* ``assign(value)``, ``assign_add(value)``, ``assign_sub(value)`` write in place (the array
  object stays the same, so optimizer state and views keep pointing at it);
* ``numpy()`` is a NumPy copy, ``value`` the variable itself: a chainlet ``Variable`` usable in
  any chainlet function, whose ``.grad`` is the gradient after ``backward()`` — so the PyTorch
  idiom ``[v.value.grad for v in model.trainable_weights]`` works unchanged;
* ``trainable`` (settable: it moves the weight between ``trainable_weights`` and
  ``non_trainable_weights`` of its layer), ``name`` (``'kernel'``) and ``path``
  (``'dense/kernel'``).

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> v = keras.Variable(np.zeros(3, np.float32), name='acc')
    >>> _ = v.assign_add([1, 2, 3]).assign_sub(1.0)
    >>> v.numpy()
    array([0., 1., 2.], dtype=float32)
    >>> v.shape, v.trainable, v.path
    ((3,), True, 'acc')
"""
from __future__ import annotations

import weakref
from typing import Any, Optional, cast

import numpy

import chainlet
from chainlet import Parameter, backend
from chainlet.keras import config


def _as_array(value: Any) -> Any:
    if isinstance(value, chainlet.Variable):
        return value.array
    return value


class KerasVariable(Parameter):
    """A weight or a piece of metric state (``keras.Variable``).

    Args:
        initializer: The initial value (an array, a number, a nested list) or an initializer
            (a Keras initializer name or object, called with ``shape``).
        shape: Shape; needed with an initializer, checked against an initial value.
        dtype: Dtype (``float32`` by default for an initializer; an initial value keeps its
            own float dtype unless ``dtype`` is given).
        trainable: Whether gradient descent updates it.
        autocast, aggregation, synchronization: Accepted for compatibility.
        name: Name (``'variable'`` by default).
    """

    __slots__ = ('_keras_trainable', '_owner', 'aggregation')

    def __init__(self, initializer: Any = None, shape: Any = None, dtype: Any = None,
                 trainable: bool = True, autocast: bool = True, aggregation: str = 'none',
                 synchronization: str = 'auto', name: Optional[str] = None) -> None:
        from chainlet.keras import initializers
        if initializer is None:
            raise ValueError('keras.Variable: argument initializer: expected an initial value '
                             'or an initializer, got None')
        is_init = isinstance(initializer, str) or (callable(initializer) and not isinstance(
            initializer, (numpy.ndarray, chainlet.Variable)) and not backend.is_array(initializer))
        if is_init:
            if shape is None:
                raise ValueError(f'keras.Variable "{name or "variable"}": argument shape is '
                                 f'required when initializer is an initializer '
                                 f'({initializer!r}), not a value')
            array = numpy.empty(tuple(int(s) for s in shape),
                                numpy.dtype(dtype or config.floatx()))
            initializers.get(initializer)(array)
        else:
            value = _as_array(initializer)
            native = hasattr(value, 'dtype')
            xp = backend.get_array_module(value) if native else numpy
            array = xp.array(value, copy=True)
            if dtype is not None:
                array = array.astype(numpy.dtype(dtype), copy=False)
            elif not native:  # Python numbers and lists: float32 / int32, as Keras
                array = array.astype(numpy.float32 if array.dtype.kind in 'fc' else
                                     numpy.int32 if array.dtype.kind in 'iu' else array.dtype)
            if shape is not None and tuple(array.shape) != tuple(int(s) for s in shape):
                raise ValueError(f'keras.Variable "{name or "variable"}": the initial value has '
                                 f'shape {tuple(array.shape)}, but shape={tuple(shape)} was '
                                 f'given')
        super().__init__(array, name=name or 'variable')
        self._keras_trainable = bool(trainable)
        self._owner: Any = None
        self.aggregation = aggregation

    # -- Keras attributes --

    @property
    def value(self) -> 'KerasVariable':
        """The variable itself, as a chainlet ``Variable`` (``value.grad`` is its gradient)."""
        return self

    def numpy(self) -> numpy.ndarray:
        """A NumPy copy of the current value."""
        return numpy.array(backend.to_cpu(self.array), copy=True)

    @property
    def trainable(self) -> bool:
        """Whether gradient descent updates this variable."""
        return self._keras_trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._keras_trainable = bool(value)
        owner = self._owner() if self._owner is not None else None
        if owner is not None:
            ids = owner.__dict__['_non_trainable_ids']
            if value:
                ids.discard(id(self))
            else:
                ids.add(id(self))

    @property
    def path(self) -> str:
        """``'<layer name>/<variable name>'`` (just the name for a free variable)."""
        owner = self._owner() if self._owner is not None else None
        # a KerasVariable is named by __init__ (``name or 'variable'``) and by add_weight
        name = cast(str, self.name)
        return name if owner is None else f'{owner.name}/{name}'

    def _attach(self, owner: Any) -> None:
        self._owner = weakref.ref(owner)

    # -- in-place writes --

    def _coerce(self, value: Any, where: str) -> Any:
        value = _as_array(value)
        xp = backend.get_array_module(self.array)
        if xp is numpy and backend.get_array_module(value) is not numpy:
            value = backend.to_cpu(value)
        value = xp.asarray(value)
        try:
            return xp.broadcast_to(value, self.array.shape)
        except ValueError:
            raise ValueError(f'Variable "{self.path}".{where}: the value has shape '
                             f'{tuple(value.shape)}, the variable has shape '
                             f'{tuple(self.array.shape)}') from None

    def assign(self, value: Any) -> 'KerasVariable':
        """Set the value in place (broadcast to the variable's shape, cast to its dtype)."""
        self.array[...] = self._coerce(value, 'assign')
        return self

    def assign_add(self, value: Any) -> 'KerasVariable':
        """Add ``value`` in place."""
        value = self._coerce(value, 'assign_add')
        self.array[...] += value.astype(self.array.dtype, copy=False)
        return self

    def assign_sub(self, value: Any) -> 'KerasVariable':
        """Subtract ``value`` in place."""
        value = self._coerce(value, 'assign_sub')
        self.array[...] -= value.astype(self.array.dtype, copy=False)
        return self

    # -- copies keep the class --

    def __deepcopy__(self, memo: dict) -> 'KerasVariable':
        new = KerasVariable(self.array, dtype=self.array.dtype, trainable=self.trainable,
                            aggregation=self.aggregation, name=self.name)
        memo[id(self)] = new
        return new

    def __reduce__(self):
        return (_rebuild_variable, (backend.to_cpu(self.array), self.name, self.trainable,
                                    self.aggregation))

    def __repr__(self) -> str:
        return (f'<Variable path={self.path}, shape={tuple(self.shape)}, '
                f'dtype={numpy.dtype(self.dtype).name}, value={backend.to_cpu(self.array)}>')


def _rebuild_variable(array: Any, name: str, trainable: bool,
                      aggregation: str) -> KerasVariable:
    return KerasVariable(array, dtype=array.dtype, trainable=trainable, aggregation=aggregation,
                         name=name)


__all__ = ['KerasVariable']
