"""``Dense``: ``activation(inputs @ kernel + bias)`` on the last axis."""
from __future__ import annotations

from typing import Any

import chainlet.functions as F
from chainlet.keras import activations, constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec


class Dense(Layer):
    """Densely connected layer: ``activation(dot(inputs, kernel) + bias)``.

    The kernel has Keras's layout ``(input_dim, units)``; inputs of rank > 2 are multiplied on
    their last axis.

    Args:
        units: Output size.
        activation: Activation name or callable (``None``: linear).
        use_bias: Whether to add a bias.
        kernel_initializer, bias_initializer: Initializers (``'glorot_uniform'``, ``'zeros'``).
        kernel_regularizer, bias_regularizer, activity_regularizer: Optional regularizers.
        kernel_constraint, bias_constraint: Optional constraints.

    Shape:
        ``(batch, ..., input_dim)`` -> ``(batch, ..., units)``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.Dense(4, activation='relu')
        >>> layer(np.ones((2, 3), np.float32)).shape
        (2, 4)
        >>> [w.shape for w in layer.weights]
        [(3, 4), (4,)]
    """

    supports_masking = True  # keeps the time axis: an input mask passes through

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = 'glorot_uniform', bias_initializer: Any = 'zeros',
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, int) or isinstance(units, bool) or units <= 0:
            raise ValueError(f'Dense "{self.name}": argument units: expected a positive int, '
                             f'got {units!r}')
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f'Dense "{self.name}": the last dimension of the input must be '
                             f'known, got input shape {input_shape}')
        self.kernel = self.add_weight('kernel', (input_dim, self.units),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight('bias', (self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})
        self.built = True

    def call(self, inputs: Any) -> Any:
        # x @ kernel keeps the kernel's gradient (x.T @ gy) a contiguous array in the Keras
        # layout, so backward and the optimizer run on dense arrays.
        x = inputs
        lead = x.shape[:-1]
        if x.ndim != 2:
            x = F.reshape(x, (-1, x.shape[-1]))
        y = F.matmul(x, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        if len(lead) != 1:
            y = F.reshape(y, lead + (self.units,))
        return self.activation(y)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            units=self.units, activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer))
        return config

    def _repr_args(self) -> dict:
        return {'name': self.name, 'units': self.units}
