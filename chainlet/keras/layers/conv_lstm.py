"""Convolutional LSTM layers ``ConvLSTM1D``, ``ConvLSTM2D``, ``ConvLSTM3D`` (Shi et al., 2015),
Keras 3's formulation.

An LSTM whose input and recurrent transformations are convolutions: with ``*`` a convolution,
``z = x_t * kernel + bias + h_{t-1} * recurrent_kernel`` split into the gates ``i, f, c, o``
(Keras's order), ``c_t = ra(f) * c_{t-1} + ra(i) * activation(c)`` and
``h_t = ra(o) * activation(c_t)``. The input convolution uses the layer's ``strides``,
``padding`` and ``dilation_rate``; the recurrent one is stride 1, ``'same'``, undilated, as in
Keras. Weights keep Keras's layouts: ``kernel`` ``kernel_size + (channels, 4 * filters)``,
``recurrent_kernel`` ``kernel_size + (filters, 4 * filters)``, ``bias`` ``(4 * filters,)``.

Design: the step loop runs channels-first; the input convolution of every time step is one
``convolution_nd`` over ``batch * time`` images (only the recurrent convolution stays in the
loop), and everything is chainlet functions, so backward is backpropagation through time.
Dropout follows Keras: one mask per gate, drawn once per call and shared by all steps.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras import activations, constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.layers._utils import (conv_output_length, get_mask, mask_array,
                                          normalize_data_format, normalize_padding,
                                          normalize_tuple, same_padding, set_mask,
                                          spatial_padding)


def _to_chainer(kernel: Any, rank: int) -> Any:
    """Keras ``(*k, in, out)`` -> Chainer ``(out, in, *k)``."""
    return F.transpose(kernel, (rank + 1, rank) + tuple(range(rank)))


class _ConvLSTM(Layer):
    """The ConvLSTM of rank ``rank`` (see the module docstring); ``ConvLSTM1D/2D/3D`` fix it."""

    rank = 2

    def __init__(self, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = 'valid', data_format: Optional[str] = None,
                 dilation_rate: Any = 1, activation: Any = 'tanh',
                 recurrent_activation: Any = 'sigmoid', use_bias: bool = True,
                 kernel_initializer: Any = 'glorot_uniform',
                 recurrent_initializer: Any = 'orthogonal', bias_initializer: Any = 'zeros',
                 unit_forget_bias: bool = True, kernel_regularizer: Any = None,
                 recurrent_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 recurrent_constraint: Any = None, bias_constraint: Any = None,
                 dropout: float = 0.0, recurrent_dropout: float = 0.0,
                 seed: Optional[int] = None, return_sequences: bool = False,
                 return_state: bool = False, go_backwards: bool = False,
                 stateful: bool = False, **kwargs: Any) -> None:
        for hint in ('unroll', 'zero_output_for_mask'):  # RNN arguments with no effect here
            kwargs.pop(hint, None)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        where = self._where
        n = self.rank
        if isinstance(filters, bool) or not isinstance(filters, (int, numpy.integer)) \
                or filters <= 0:
            raise ValueError(f'{where}: argument filters: expected a positive int, '
                             f'got {filters!r}')
        self.filters = int(filters)
        self.kernel_size = normalize_tuple(kernel_size, n, 'kernel_size', where)
        self.strides = normalize_tuple(strides, n, 'strides', where)
        self.padding = normalize_padding(padding, where)
        self.data_format = normalize_data_format(data_format, where)
        self.dilation_rate = normalize_tuple(dilation_rate, n, 'dilation_rate', where)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f'{where}: strides > 1 is not supported together with '
                             f'dilation_rate > 1; got strides={self.strides} and '
                             f'dilation_rate={self.dilation_rate}')
        for arg, rate in (('dropout', dropout), ('recurrent_dropout', recurrent_dropout)):
            if not 0 <= rate < 1:
                raise ValueError(f'{where}: argument {arg}: expected a float in [0, 1), '
                                 f'got {rate!r}')
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.unit_forget_bias = bool(unit_forget_bias)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.recurrent_constraint = constraints.get(recurrent_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.dropout, self.recurrent_dropout = float(dropout), float(recurrent_dropout)
        self.seed = seed
        self._rng = None if seed is None else numpy.random.default_rng(seed)
        self.return_sequences, self.return_state = bool(return_sequences), bool(return_state)
        self.go_backwards, self.stateful = bool(go_backwards), bool(stateful)
        # a stateful layer's carried [h, c], as arrays in the layer's data format
        self.states: Optional[list] = None
        self.input_spec = InputSpec(ndim=n + 3)

    @property
    def _where(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    @property
    def _channel_axis(self) -> int:
        return -1 if self.data_format == 'channels_last' else 2

    def _spatial(self, shape: Any) -> tuple:
        return tuple(shape[2:-1] if self.data_format == 'channels_last' else shape[3:])

    # -- weights --

    def build(self, input_shape: Any) -> None:
        channels = input_shape[self._channel_axis]
        if channels is None:
            raise ValueError(f'{self._where}: the channel dimension of the inputs must be '
                             f'known, got input shape {tuple(input_shape)}')
        width = 4 * self.filters
        self.kernel = self.add_weight('kernel', self.kernel_size + (channels, width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(
            'recurrent_kernel', self.kernel_size + (self.filters, width),
            initializer=self.recurrent_initializer, regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight('bias', (width,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
            if self.unit_forget_bias:  # Keras: the forget gate's bias starts at 1
                self.bias.array[self.filters:2 * self.filters] = 1
        self.input_spec = InputSpec(ndim=self.rank + 3, axes={self._channel_axis: channels})
        self.built = True

    # -- the loop --

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Optional[bool] = None) -> Any:
        x = sequences
        if x.shape[1] == 0:
            raise ValueError(f'{self._where}: the input has no time steps (shape {x.shape})')
        mask = mask_array(mask) if mask is not None else get_mask(sequences)
        out_mask = mask
        if self.data_format == 'channels_last':  # (B, T, *S, C) -> (B, T, C, *S)
            x = F.moveaxis(x, -1, 2)
        if self.go_backwards:
            x = F.flip(x, 1)
            mask = None if mask is None else mask[:, ::-1]
        batch, xp = x.shape[0], x.xp
        projected = self._input_projection(x, training)  # (B, T, 4F, *S')
        out_spatial = tuple(projected.shape[3:])
        if initial_state is None and self.stateful and self.states is not None:
            initial_state = self.states
        h, c = self._initial_states(x, initial_state, out_spatial)
        rec_masks = None
        if training and self.recurrent_dropout > 0:
            rec_masks = [self._dropout_mask(xp, h.shape, self.recurrent_dropout, x.dtype)
                         for _ in range(4)]
        W_rec = _to_chainer(self.recurrent_kernel, self.rank)
        ra = self.recurrent_activation
        outputs = []
        for t, xw in enumerate(F.separate(projected, axis=1)):
            z = xw + self._recurrent_conv(h, W_rec, rec_masks)
            zi, zf, zc, zo = F.split_axis(z, 4, axis=1)
            c_new = ra(zf) * c + ra(zi) * self.activation(zc)
            h_new = ra(zo) * self.activation(c_new)
            if mask is not None:  # masked steps keep the states and repeat the output
                keep = xp.broadcast_to(
                    xp.asarray(mask[:, t]).reshape((batch,) + (1,) * (h.ndim - 1)), h.shape)
                h_new, c_new = F.where(keep, h_new, h), F.where(keep, c_new, c)
            h, c = h_new, c_new
            outputs.append(h)
        if self.return_sequences:
            result = self._from_channels_first(F.stack(outputs, axis=1), 2)
            set_mask(result, out_mask)
        else:
            result = self._from_channels_first(outputs[-1], 1)
        if self.stateful:  # the next call starts here (values only: no gradient across calls)
            self.states = [self._from_channels_first(s, 1).array.copy() for s in (h, c)]
        if self.return_state:
            return [result, self._from_channels_first(h, 1), self._from_channels_first(c, 1)]
        return result

    def _input_projection(self, x: Any, training: Optional[bool]) -> Any:
        """The input convolution of every step at once: ``(B, T, C, *S) -> (B, T, 4F, *S')``."""
        batch, steps = x.shape[0], x.shape[1]
        flat = F.reshape(x, (batch * steps,) + tuple(x.shape[2:]))
        W = _to_chainer(self.kernel, self.rank)
        if training and self.dropout > 0:
            # one mask per gate, the same for every step (Keras's DropoutRNNCell)
            shape = (batch, 1) + tuple(x.shape[2:])
            parts = []
            Ws = F.split_axis(W, 4, axis=0)
            bs = F.split_axis(self.bias, 4, axis=0) if self.bias is not None else [None] * 4
            for Wg, bg in zip(Ws, bs):
                m = self._dropout_mask(x.xp, shape, self.dropout, x.dtype)
                xm = F.reshape(x * m, flat.shape)
                parts.append(self._conv(xm, Wg, bg, self.strides, self.padding,
                                        self.dilation_rate))
            y = F.concat(parts, axis=1)
        else:
            y = self._conv(flat, W, self.bias, self.strides, self.padding, self.dilation_rate)
        return F.reshape(y, (batch, steps) + tuple(y.shape[1:]))

    def _recurrent_conv(self, h: Any, W: Any, masks: Optional[list]) -> Any:
        ones = (1,) * self.rank
        if masks is None:
            return self._conv(h, W, None, ones, 'same', ones)
        return F.concat([self._conv(h * m, Wg, None, ones, 'same', ones)
                         for m, Wg in zip(masks, F.split_axis(W, 4, axis=0))], axis=1)

    def _conv(self, x: Any, W: Any, b: Any, strides: tuple, padding: str,
              dilation: tuple) -> Any:
        ksize = self.kernel_size
        if padding == 'valid':
            pads = [(0, 0)] * self.rank
        else:
            pads = [same_padding(length, k, s, d) for length, k, s, d in
                    zip(x.shape[2:], ksize, strides, dilation)]
        x, pad = spatial_padding(x, pads)
        return F.convolution_nd(x, W, b, stride=strides, pad=pad, cover_all=False,
                                dilate=dilation)

    def _from_channels_first(self, y: Any, channel_axis: int) -> Any:
        return F.moveaxis(y, channel_axis, -1) if self.data_format == 'channels_last' else y

    def _dropout_mask(self, xp: Any, shape: tuple, rate: float, dtype: Any) -> Any:
        rng = self._rng if self._rng is not None else numpy.random
        keep = rng.random(shape) >= rate
        return xp.asarray((keep / (1.0 - rate)).astype(dtype))

    def _initial_states(self, x: Any, initial_state: Any, spatial: tuple) -> list:
        batch, xp = x.shape[0], x.xp
        shape = (batch, self.filters) + spatial  # channels-first
        if initial_state is None:
            return [Variable(xp.zeros(shape, x.dtype), requires_grad=False) for _ in range(2)]
        if not isinstance(initial_state, (list, tuple)) or len(initial_state) != 2:
            raise ValueError(f'{self._where}: initial_state: expected a list of 2 states '
                             f'[h, c], got {initial_state!r}')
        states = []
        for s in initial_state:
            if not isinstance(s, Variable):
                s = Variable(xp.asarray(s, x.dtype), requires_grad=False)
            if self.data_format == 'channels_last' and s.ndim == self.rank + 2:
                s = F.moveaxis(s, -1, 1)
            if tuple(s.shape) != shape:
                raise ValueError(f'{self._where}: initial_state: expected states of shape '
                                 f'{self._state_shape(batch, spatial)}, got '
                                 f'{tuple(s.shape)} (channels first)')
            states.append(s)
        return states

    def reset_states(self, states: Any = None) -> None:
        """Forget the carried states of a stateful layer, or set them to ``states``
        (``[h, c]`` in the layer's data format)."""
        if states is None:
            self.states = None
            return
        self.states = [s.array.copy() if isinstance(s, Variable) else numpy.array(s)
                       for s in states]

    reset_state = reset_states

    # -- shapes and config --

    def _state_shape(self, batch: Any, spatial: tuple) -> tuple:
        if self.data_format == 'channels_last':
            return (batch,) + spatial + (self.filters,)
        return (batch, self.filters) + spatial

    def compute_output_shape(self, input_shape: Any) -> Any:
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        batch = input_shape[0]
        spatial = tuple(conv_output_length(length, k, self.padding, s, d) for length, k, s, d
                        in zip(self._spatial(input_shape), self.kernel_size, self.strides,
                               self.dilation_rate))
        state = self._state_shape(batch, spatial)
        out = (batch, input_shape[1]) + state[1:] if self.return_sequences else state
        if self.return_state:
            return [out, state, state]
        return out

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        shape = self.compute_output_shape(tuple(inputs.shape))
        if self.return_state:
            return [KerasTensor(s, self._dtype) for s in shape]
        return KerasTensor(shape, self._dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            filters=self.filters, kernel_size=self.kernel_size, strides=self.strides,
            padding=self.padding, data_format=self.data_format,
            dilation_rate=self.dilation_rate,
            activation=activations.serialize(self.activation),
            recurrent_activation=activations.serialize(self.recurrent_activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            recurrent_initializer=initializers.serialize(self.recurrent_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            unit_forget_bias=self.unit_forget_bias,
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            recurrent_regularizer=regularizers.serialize(self.recurrent_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            kernel_constraint=constraints.serialize(self.kernel_constraint),
            recurrent_constraint=constraints.serialize(self.recurrent_constraint),
            bias_constraint=constraints.serialize(self.bias_constraint),
            dropout=self.dropout, recurrent_dropout=self.recurrent_dropout, seed=self.seed,
            return_sequences=self.return_sequences, return_state=self.return_state,
            go_backwards=self.go_backwards, stateful=self.stateful)
        return config


_DOC = """{rank}-D convolutional LSTM: an LSTM whose input and recurrent transformations are
    {rank}-D convolutions (Keras 3's ``ConvLSTM{rank}D``; the formula is in
    :mod:`chainlet.keras.layers.conv_lstm`).

    Args:
        filters: Number of output channels (of ``h`` and ``c``).
        kernel_size: Int or tuple of {rank} ints (input and recurrent convolutions).
        strides: Int or tuple of {rank} ints (input convolution only).
        padding: ``'valid'`` or ``'same'`` (input convolution; the recurrent one is 'same').
        data_format: ``'channels_last'`` ``(batch, time, {dims}, channels)`` or
            ``'channels_first'`` ``(batch, time, channels, {dims})``
            (``keras.config.image_data_format()`` when ``None``).
        dilation_rate: Int or tuple of {rank} ints (input convolution).
        activation, recurrent_activation: ``'tanh'`` and ``'sigmoid'`` by default.
        use_bias, unit_forget_bias: Bias on; the forget gate's bias starts at 1.
        kernel_initializer, recurrent_initializer, bias_initializer: ``'glorot_uniform'``,
            ``'orthogonal'``, ``'zeros'`` by default.
        kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, recurrent_constraint, bias_constraint: Optional.
        dropout, recurrent_dropout: Fractions dropped in training from the inputs and from
            ``h`` (one mask per gate per call).
        seed: Seed of the dropout masks.
        return_sequences: Return every step's output ``(batch, time, ...)``.
        return_state: Also return the final ``h`` and ``c``: ``[output, h, c]``.
        go_backwards: Process the sequence in reverse.
        stateful: Carry the final states over to the next call (``reset_states()``).

    Call arguments: ``sequences``, ``initial_state`` (``[h, c]``), ``mask`` (boolean
    ``(batch, time)``: masked steps keep the states), ``training``.

    Weights: ``kernel`` ``kernel_size + (channels, 4 * filters)``, ``recurrent_kernel``
    ``kernel_size + (filters, 4 * filters)``, ``bias`` ``(4 * filters,)``; gates ``i, f, c, o``.
"""


class ConvLSTM1D(_ConvLSTM):
    __doc__ = _DOC.format(rank=1, dims='steps') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.ConvLSTM1D(4, 3, padding='same', return_sequences=True)
        >>> layer(np.zeros((2, 5, 8, 3), np.float32)).shape
        (2, 5, 8, 4)
    """
    rank = 1


class ConvLSTM2D(_ConvLSTM):
    __doc__ = _DOC.format(rank=2, dims='rows, cols') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.ConvLSTM2D(4, 3)
        >>> layer(np.zeros((2, 5, 8, 8, 1), np.float32)).shape
        (2, 6, 6, 4)
        >>> [w.shape for w in layer.weights]
        [(3, 3, 1, 16), (3, 3, 4, 16), (16,)]
    """
    rank = 2


class ConvLSTM3D(_ConvLSTM):
    __doc__ = _DOC.format(rank=3, dims='d1, d2, d3') + """
    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> layer = keras.layers.ConvLSTM3D(2, 3, padding='same')
        >>> layer(np.zeros((1, 3, 4, 4, 4, 1), np.float32)).shape
        (1, 4, 4, 4, 2)
    """
    rank = 3


__all__ = ['ConvLSTM1D', 'ConvLSTM2D', 'ConvLSTM3D']
