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

import numpy

import chainlet.functions as F
from chainlet.keras.ops import nn as _nn


def linear(x: Any) -> Any:
    """Identity."""
    return x


def relu(x: Any, negative_slope: float = 0.0, max_value: Any = None,
         threshold: float = 0.0) -> Any:
    """``max(x, 0)``; Keras's options: ``negative_slope`` below ``threshold``, values at or
    below ``threshold`` zeroed, clipped at ``max_value``."""
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return F.relu(x)  # the common case, one node
    x = _as_float(x)
    if negative_slope != 0.0 and max_value is None and threshold == 0.0:
        return F.leaky_relu(x, negative_slope)
    negative = F.relu(threshold - x) if negative_slope != 0.0 else None
    if threshold != 0.0:
        y = x * (x.array > threshold).astype(x.dtype)
    else:
        y = F.relu(x)
    if max_value is not None:
        y = F.clip(y, 0.0, float(max_value))
    if negative is not None:
        y = y - negative_slope * negative
    return y


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


def gelu(x: Any, approximate: bool = False) -> Any:
    """Gaussian error linear unit: exact (Keras's activation default) or the tanh
    approximation."""
    return F.gelu(x) if not approximate else _nn.gelu(_as_float(x), approximate=True)


def exponential(x: Any) -> Any:
    return F.exp(x)


def hard_sigmoid(x: Any) -> Any:
    return F.hard_sigmoid(x)


def relu6(x: Any) -> Any:
    return F.relu6(x)


def leaky_relu(x: Any, negative_slope: float = 0.2) -> Any:
    return F.leaky_relu(x, negative_slope)


def _as_float(x: Any) -> Any:
    from chainlet import Variable
    if not isinstance(x, Variable):
        x = Variable(numpy.asarray(x), requires_grad=False)
    return x if x.dtype.kind == 'f' else F.cast(x, 'float32')


def mish(x: Any) -> Any:
    """``x * tanh(softplus(x))`` (Misra, 2019)."""
    x = _as_float(x)
    return x * F.tanh(F.softplus(x))


# The rest of Keras 3's activations are keras.ops.nn functions (NumPy in, Variable out).
silu = swish
celu: Callable[..., Any] = getattr(_nn, 'celu')
glu: Callable[..., Any] = getattr(_nn, 'glu')
hard_shrink: Callable[..., Any] = getattr(_nn, 'hard_shrink')
hard_silu: Callable[..., Any] = getattr(_nn, 'hard_silu')
hard_swish: Callable[..., Any] = getattr(_nn, 'hard_swish')
hard_tanh: Callable[..., Any] = getattr(_nn, 'hard_tanh')
log_sigmoid: Callable[..., Any] = getattr(_nn, 'log_sigmoid')
soft_shrink: Callable[..., Any] = getattr(_nn, 'soft_shrink')
sparse_plus: Callable[..., Any] = getattr(_nn, 'sparse_plus')
sparse_sigmoid: Callable[..., Any] = getattr(_nn, 'sparse_sigmoid')
sparsemax: Callable[..., Any] = getattr(_nn, 'sparsemax')
squareplus: Callable[..., Any] = getattr(_nn, 'squareplus')
tanh_shrink: Callable[..., Any] = getattr(_nn, 'tanh_shrink')
threshold: Callable[..., Any] = getattr(_nn, 'threshold')

_ACTIVATIONS: dict = {f.__name__: f for f in (
    linear, relu, sigmoid, tanh, softmax, log_softmax, elu, selu, softplus, softsign, swish,
    gelu, exponential, hard_sigmoid, relu6, leaky_relu)}
_ACTIVATIONS.update(
    silu=swish, celu=celu, glu=glu, hard_shrink=hard_shrink, hard_silu=hard_silu,
    hard_swish=hard_swish, hard_tanh=hard_tanh, log_sigmoid=log_sigmoid, mish=mish,
    soft_shrink=soft_shrink, sparse_plus=sparse_plus, sparse_sigmoid=sparse_sigmoid,
    sparsemax=sparsemax, squareplus=squareplus, tanh_shrink=tanh_shrink, threshold=threshold)


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


def deserialize(config: Any, custom_objects: Any = None) -> Callable[[Any], Any]:
    """The activation of :func:`serialize`'s output (a name, or Keras's ``{'class_name':
    'function', 'config': name}``); names also from ``custom_objects``."""
    name = config.get('config') if isinstance(config, dict) else config
    if custom_objects and isinstance(name, str) and name in custom_objects:
        return custom_objects[name]
    return get(config)
