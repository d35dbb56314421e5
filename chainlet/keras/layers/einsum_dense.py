"""``keras.layers.EinsumDense``: a dense layer whose product is an einsum equation.

``y = activation(einsum(equation, x, kernel) + bias)``. The equation is
``'<input>,<kernel>-><output>'`` with letters for axes, optionally ``...`` at the left or the
right of the input and output for axes passed through; the kernel's shape is read from the
input and ``output_shape`` (the output without the batch axis), and ``bias_axes`` names the
output axes the bias spans. The analysis of the equation follows Keras 3's
(``_analyze_split_string``), so weights have Keras's shapes and a Keras weight file loads.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> layer = keras.layers.EinsumDense('abc,cde->abde', output_shape=(None, 2, 4),
    ...                                  bias_axes='de')
    >>> layer(np.ones((3, 5, 6), np.float32)).shape
    (3, 5, 2, 4)
    >>> [w.shape for w in layer.weights]
    [(6, 2, 4), (2, 4)]
"""
from __future__ import annotations

import copy
import re
from typing import Any, Optional

from chainlet.keras import activations, constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec


def analyze_equation(equation: str, bias_axes: Optional[str], input_shape: tuple,
                     output_shape: Any) -> tuple:
    """``(kernel_shape, bias_shape, full_output_shape, kernel_input_axes,
    kernel_output_axes)`` of an EinsumDense equation (Keras's analysis).

    Raises:
        ValueError: The equation is not of a supported form, or its axes do not match.
    """
    dotless = equation.replace('...', '0')
    for pattern, left in (('([a-zA-Z]+),([a-zA-Z]+)->([a-zA-Z]+)$', False),
                          ('0([a-zA-Z]+),([a-zA-Z]+)->0([a-zA-Z]+)$', True),
                          ('([a-zA-Z]{2,})0,([a-zA-Z]+)->([a-zA-Z]+)0$', False)):
        match = re.match(pattern, dotless)
        if match:
            return _analyze(match.group(1), match.group(2), match.group(3), bias_axes,
                            tuple(input_shape), output_shape, left)
    raise ValueError(f"EinsumDense: invalid equation {equation!r}: expected the form "
                     f"'[X],[Y]->[Z]', '...[X],[Y]->...[Z]' or '[X]...,[Y]->[Z]...'")


def _analyze(input_spec: str, weight_spec: str, output_spec: str, bias_axes: Optional[str],
             input_shape: tuple, output_shape: Any, left_elided: bool) -> tuple:
    elided = len(input_shape) - len(input_spec)
    out = [output_shape] if isinstance(output_shape, int) else list(output_shape)
    out.insert(0, input_shape[0])
    if elided > 0 and left_elided:
        for i in range(1, elided):
            out.insert(1, input_shape[i])
    elif elided > 0:
        out.extend(input_shape[len(input_shape) - elided:])
    if left_elided:
        in_map = {d: i + elided - len(input_shape) for i, d in enumerate(input_spec)}
        out_map = {d: i + elided for i, d in enumerate(output_spec)}
    else:
        in_map = {d: i for i, d in enumerate(input_spec)}
        out_map = {d: i for i, d in enumerate(output_spec)}
    for d in input_spec:
        if d in out_map and out[out_map[d]] is not None and \
                out[out_map[d]] != input_shape[in_map[d]]:
            raise ValueError(f"EinsumDense: input and output shapes differ at the shared axis "
                             f"'{d}': {input_shape[in_map[d]]} and {out[out_map[d]]}")
    for d in output_spec:
        if d not in input_spec and d not in weight_spec:
            raise ValueError(f"EinsumDense: output axis '{d}' is neither in the input spec "
                             f"'{input_spec}' nor in the kernel spec '{weight_spec}'")
    kernel_shape, input_axes, output_axes = [], [], []
    for i, d in enumerate(weight_spec):
        if d in out_map:
            kernel_shape.append(out[out_map[d]])
            output_axes.append(i)
        elif d in in_map:
            kernel_shape.append(input_shape[in_map[d]])
            input_axes.append(i)
        else:
            raise ValueError(f"EinsumDense: kernel axis '{d}' is neither in the input spec "
                             f"'{input_spec}' nor in the output spec '{output_spec}'")
    bias_shape = None
    if bias_axes is not None:
        for d in bias_axes:
            if d not in output_spec:
                raise ValueError(f"EinsumDense: bias axis '{d}' is not in the output spec "
                                 f"'{output_spec}'")
        shift = elided if left_elided else 0
        sizes = {d: out[i + shift] for i, d in enumerate(output_spec)}
        first = min(output_spec.find(d) for d in bias_axes)
        bias_shape = [sizes[d] if d in bias_axes else 1 for d in output_spec[first:]]
        if not left_elided:
            bias_shape += [1] * elided
    return kernel_shape, bias_shape, out, input_axes, output_axes


class EinsumDense(Layer):
    """A dense layer on an einsum equation (see the module docstring).

    Args:
        equation: ``'<input>,<kernel>-><output>'``, e.g. ``'ab,bc->ac'`` (a Dense),
            ``'abc,cd->abd'`` (a Dense over the last axis), ``'...b,bc->...c'``.
        output_shape: The output's shape without the batch axis (``None`` for axes taken
            from the input); an int for one axis.
        activation: Activation (``None``: linear).
        bias_axes: Letters of the output axes the bias spans (``None``: no bias).
        kernel_initializer, bias_initializer: ``'glorot_uniform'`` (its fans follow the
            kernel's input and output axes, as Keras) and ``'zeros'``.
        kernel_regularizer, bias_regularizer, activity_regularizer: Optional regularizers.
        kernel_constraint, bias_constraint: Optional constraints.
    """

    def __init__(self, equation: str, output_shape: Any, activation: Any = None,
                 bias_axes: Optional[str] = None, kernel_initializer: Any = 'glorot_uniform',
                 bias_initializer: Any = 'zeros', kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 **kwargs: Any) -> None:
        for unused in ('lora_rank', 'lora_alpha', 'gptq_unpacked_column_size',
                       'quantization_config'):
            if kwargs.pop(unused, None) is not None:
                raise ValueError(f'EinsumDense: argument {unused}: LoRA and quantization are '
                                 f'not supported by chainlet.keras')
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(equation, str):
            raise TypeError(f'EinsumDense "{self.name}": argument equation: expected a str, '
                            f'got {type(equation).__name__}')
        self.equation = equation
        self.partial_output_shape = ((output_shape,) if isinstance(output_shape, int)
                                     else tuple(output_shape))
        self.activation = activations.get(activation)
        self.bias_axes = bias_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)

    def build(self, input_shape: Any) -> None:
        kernel_shape, bias_shape, full, in_axes, out_axes = analyze_equation(
            self.equation, self.bias_axes, tuple(input_shape), self.partial_output_shape)
        self.full_output_shape = tuple(full)
        init = self.kernel_initializer
        if isinstance(init, initializers.VarianceScaling) and \
                (init.input_axes is None or init.output_axes is None):
            # Keras: the fans of the kernel come from its input and output axes
            init = copy.copy(init)
            init.input_axes, init.output_axes = in_axes, out_axes
        self.kernel = self.add_weight('kernel', tuple(kernel_shape), initializer=init,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = None
        if bias_shape is not None:
            self.bias = self.add_weight('bias', tuple(bias_shape),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.input_spec = InputSpec(ndim=len(input_shape))
        self.built = True

    def call(self, inputs: Any) -> Any:
        from chainlet.keras.ops.numpy import einsum
        y = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)

    def compute_output_shape(self, input_shape: Any) -> tuple:
        _, _, full, _, _ = analyze_equation(self.equation, self.bias_axes, tuple(input_shape),
                                            self.partial_output_shape)
        return tuple(full)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            equation=self.equation, output_shape=self.partial_output_shape,
            bias_axes=self.bias_axes, activation=activations.serialize(self.activation),
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint))
        return config


__all__ = ['EinsumDense']
