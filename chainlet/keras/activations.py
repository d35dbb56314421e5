"""Activation functions by Keras name (``'relu'``, ``'softmax'``, ...), on chainlet functions.

Keras's ``softmax`` and ``log_softmax`` act on the **last** axis (Chainer's on axis 1).

Example:
    >>> import numpy as np
    >>> from chainlet.keras import activations
    >>> activations.get('relu')(np.array([-1.0, 2.0])).array
    array([0., 2.])
"""
from __future__ import annotations

from typing import Any, Callable

import chainlet.functions as F


def linear(x: Any) -> Any:
    """Identity."""
    return x


def relu(x: Any) -> Any:
    return F.relu(x)


def sigmoid(x: Any) -> Any:
    return F.sigmoid(x)


def tanh(x: Any) -> Any:
    return F.tanh(x)


def softmax(x: Any, axis: int = -1) -> Any:
    return F.softmax(x, axis=axis)


def log_softmax(x: Any, axis: int = -1) -> Any:
    return F.log_softmax(x, axis=axis)


def elu(x: Any, alpha: float = 1.0) -> Any:
    return F.elu(x, alpha)


def selu(x: Any) -> Any:
    return F.selu(x)


def softplus(x: Any) -> Any:
    return F.softplus(x)


def softsign(x: Any) -> Any:
    return x / (F.absolute(x) + 1.0)


def swish(x: Any) -> Any:
    return F.silu(x)


def gelu(x: Any) -> Any:
    return F.gelu(x)


def exponential(x: Any) -> Any:
    return F.exp(x)


def hard_sigmoid(x: Any) -> Any:
    return F.hard_sigmoid(x)


def relu6(x: Any) -> Any:
    return F.relu6(x)


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    return F.leaky_relu(x, negative_slope)


_ACTIVATIONS: dict = {f.__name__: f for f in (
    linear, relu, sigmoid, tanh, softmax, log_softmax, elu, selu, softplus, softsign, swish,
    gelu, exponential, hard_sigmoid, relu6, leaky_relu)}
_ACTIVATIONS['silu'] = swish


def get(identifier: Any) -> Callable[[Any], Any]:
    """An activation function from a name, a callable or ``None`` (linear)."""
    if identifier is None:
        return linear
    if isinstance(identifier, dict) and identifier.get('class_name') == 'function':
        identifier = identifier.get('config')  # Keras 3's serialized form of a function
    if isinstance(identifier, str):
        fn = _ACTIVATIONS.get(identifier)
        if fn is None:  # a function registered with keras.saving, or in a custom_object_scope
            from chainlet.keras.saving.object_registration import get_registered_object
            fn = get_registered_object(identifier)
        if fn is None:
            raise ValueError(f'Unknown activation function: {identifier!r}. Known: '
                             f'{sorted(_ACTIVATIONS)}')
        return fn
    if callable(identifier):
        return identifier
    raise TypeError(f'Could not interpret activation function identifier: {identifier!r}')


def serialize(activation: Callable[[Any], Any]) -> str:
    """The name of a built-in activation (custom callables keep their ``__name__``)."""
    for name, fn in _ACTIVATIONS.items():
        if fn is activation:
            return name
    from chainlet.keras.saving.object_registration import get_registered_name
    return get_registered_name(activation)
