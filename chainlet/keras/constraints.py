"""Weight constraints, applied to a weight's array after each optimizer update.

Example:
    >>> import numpy as np
    >>> from chainlet.keras import constraints
    >>> w = np.array([-1.0, 2.0]); constraints.NonNeg()(w); w
    array([0., 2.])
"""
from __future__ import annotations

from typing import Any

from chainlet import backend


class Constraint:
    """Base class: ``c(array)`` projects the array in place."""

    def __call__(self, w: Any) -> None:
        raise NotImplementedError(f'{type(self).__name__} must implement __call__')

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> 'Constraint':
        return cls(**config)


class NonNeg(Constraint):
    """Clip negative entries to zero."""

    def __call__(self, w: Any) -> None:
        backend.get_array_module(w).maximum(w, 0, out=w)


class MaxNorm(Constraint):
    """Rescale so the norm along ``axis`` is at most ``max_value``."""

    def __init__(self, max_value: float = 2.0, axis: int = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> None:
        xp = backend.get_array_module(w)
        norms = xp.sqrt((w * w).sum(axis=self.axis, keepdims=True))
        w *= xp.clip(norms, 0, self.max_value) / (norms + 1e-7)

    def get_config(self) -> dict:
        return {'max_value': self.max_value, 'axis': self.axis}


class UnitNorm(Constraint):
    """Rescale to unit norm along ``axis``."""

    def __init__(self, axis: int = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> None:
        xp = backend.get_array_module(w)
        w /= xp.sqrt((w * w).sum(axis=self.axis, keepdims=True)) + 1e-7

    def get_config(self) -> dict:
        return {'axis': self.axis}


class MinMaxNorm(Constraint):
    """Rescale so the norm along ``axis`` moves towards ``[min_value, max_value]``: the new
    norm is ``rate * clip(norm, min_value, max_value) + (1 - rate) * norm`` (Keras's)."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: int = 0) -> None:
        self.min_value, self.max_value = min_value, max_value
        self.rate, self.axis = rate, axis

    def __call__(self, w: Any) -> None:
        xp = backend.get_array_module(w)
        norms = xp.sqrt((w * w).sum(axis=self.axis, keepdims=True))
        desired = self.rate * xp.clip(norms, self.min_value, self.max_value) + \
            (1 - self.rate) * norms
        w *= desired / (norms + 1e-7)

    def get_config(self) -> dict:
        return {'min_value': self.min_value, 'max_value': self.max_value, 'rate': self.rate,
                'axis': self.axis}


# Keras's lower-case aliases of the classes
max_norm, min_max_norm, non_neg, unit_norm = MaxNorm, MinMaxNorm, NonNeg, UnitNorm

_NAMES = {'non_neg': NonNeg, 'nonneg': NonNeg, 'max_norm': MaxNorm, 'unit_norm': UnitNorm,
          'min_max_norm': MinMaxNorm}
# Keyed by whatever a config's 'class_name' holds (looked up with .get, so any hashable).
_CLASSES: dict[Any, type[Constraint]] = {'NonNeg': NonNeg, 'MaxNorm': MaxNorm,
                                         'UnitNorm': UnitNorm, 'MinMaxNorm': MinMaxNorm}


def serialize(constraint: Any) -> Any:
    """``{'class_name': ..., 'config': ...}`` of a constraint (``None`` stays ``None``)."""
    if constraint is None:
        return None
    if isinstance(constraint, Constraint):
        return {'class_name': type(constraint).__name__, 'config': constraint.get_config()}
    raise ValueError(f'constraints.serialize: argument constraint: expected a Constraint, '
                     f'got {constraint!r}')


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The constraint of :func:`serialize`'s config (classes also from ``custom_objects``)."""
    if isinstance(config, dict) and custom_objects and \
            config.get('class_name') in custom_objects:
        return custom_objects[config['class_name']](**config.get('config', {}))
    return get(config)


def get(identifier: Any) -> Any:
    """A constraint from a name, a config dict, or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _NAMES:
            raise ValueError(f'Unknown constraint: {identifier!r}. Known: {sorted(_NAMES)}')
        return _NAMES[identifier]()
    if isinstance(identifier, dict):
        cls = _CLASSES.get(identifier.get('class_name'))
        if cls is None:
            raise ValueError(f'Unknown constraint: {identifier.get("class_name")!r}')
        return cls(**identifier.get('config', {}))
    if callable(identifier):
        return identifier
    raise TypeError(f'Could not interpret constraint identifier: {identifier!r}')
