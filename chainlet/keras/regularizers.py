"""Weight and activity regularizers (``l1``, ``l2``, ``l1_l2``).

Example:
    >>> import numpy as np
    >>> from chainlet.keras import regularizers
    >>> float(regularizers.l2(0.1)(np.array([1.0, 2.0])).array)
    0.5
"""
from __future__ import annotations

from typing import Any

import chainlet.functions as F


class Regularizer:
    """Base class: ``reg(x)`` returns a scalar penalty Variable."""

    def __call__(self, x: Any) -> Any:
        raise NotImplementedError(f'{type(self).__name__} must implement __call__')

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> 'Regularizer':
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x^2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x: Any) -> Any:
        total = None
        if self.l1:
            total = F.sum(F.absolute(x)) * self.l1
        if self.l2:
            term = F.sum(x * x) * self.l2
            total = term if total is None else total + term
        if total is None:
            total = F.sum(x * 0.0)
        return total

    def get_config(self) -> dict:
        return {'l1': self.l1, 'l2': self.l2}


class L1(L1L2):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1: float = 0.01) -> None:
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {'l1': self.l1}


class L2(L1L2):
    """``l2 * sum(x^2)``."""

    def __init__(self, l2: float = 0.01) -> None:
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {'l2': self.l2}


def l1(l1: float = 0.01) -> L1:  # noqa: E741 - Keras's name
    return L1(l1)


def l2(l2: float = 0.01) -> L2:
    return L2(l2)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E741
    return L1L2(l1, l2)


# Keyed by whatever a config's 'class_name' holds (looked up with .get, so any hashable).
_CLASSES: dict[Any, type[Regularizer]] = {'L1': L1, 'L2': L2, 'L1L2': L1L2}
_NAMES = {'l1': L1, 'l2': L2, 'l1_l2': L1L2}


def get(identifier: Any) -> Any:
    """A regularizer from a name, a config dict, or an object (``None`` stays ``None``)."""
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier not in _NAMES:
            raise ValueError(f'Unknown regularizer: {identifier!r}. Known: {sorted(_NAMES)}')
        return _NAMES[identifier]()
    if isinstance(identifier, dict):
        cls = _CLASSES.get(identifier.get('class_name'))
        if cls is None:
            raise ValueError(f'Unknown regularizer: {identifier.get("class_name")!r}')
        return cls.from_config(identifier.get('config', {}))
    if callable(identifier):
        return identifier
    raise TypeError(f'Could not interpret regularizer identifier: {identifier!r}')


def serialize(regularizer: Any) -> Any:
    if regularizer is None:
        return None
    if isinstance(regularizer, Regularizer):
        return {'class_name': type(regularizer).__name__, 'config': regularizer.get_config()}
    raise ValueError(f'Cannot serialize regularizer {regularizer!r}')


def deserialize(config: Any, custom_objects: Any = None) -> Any:
    """The regularizer of :func:`serialize`'s config (classes also from ``custom_objects``)."""
    if isinstance(config, dict) and custom_objects and \
            config.get('class_name') in custom_objects:
        return custom_objects[config['class_name']].from_config(config.get('config', {}))
    return get(config)
