"""Recurrent layers ``SimpleRNN``, ``LSTM``, ``GRU`` and the wrappers ``Bidirectional`` and
``TimeDistributed``.

The recurrent layers run a Python loop over the time steps of ``(batch, time, features)``
inputs; each step is ordinary chainlet functions, so backward is backpropagation through time.
Weights use Keras's layouts and gate orders: ``kernel`` ``(features, gates * units)``,
``recurrent_kernel`` ``(units, gates * units)``, ``bias`` ``(gates * units,)`` — LSTM gates
``i, f, c, o``, GRU gates ``z, r, h`` with a ``(2, 3 * units)`` bias when ``reset_after``.
"""
from __future__ import annotations

from typing import Any, Callable, Optional, cast

import numpy

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras import activations, constraints, initializers, regularizers
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.input_spec import InputSpec
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.layers._utils import get_mask, mask_array, set_mask


class _RNN(Layer):
    """The time loop, masks, dropout masks, states and config shared by the recurrent layers.

    A subclass sets ``_gates`` and ``_n_states`` and defines ``_step(xw, h, states)``, which
    maps the projected input of one step, the (possibly dropped-out) previous output and the
    previous states to ``(output, new_states)``.
    """

    _gates = 1
    _n_states = 1
    _step: Callable[[Any, Any, list], tuple]  # defined by each subclass (see above)
    input_spec: Optional[InputSpec]  # set by __init__ and build; a cell (rnn_cells) clears it

    def __init__(self, units: int, activation: Any = 'tanh', use_bias: bool = True,
                 kernel_initializer: Any = 'glorot_uniform',
                 recurrent_initializer: Any = 'orthogonal', bias_initializer: Any = 'zeros',
                 kernel_regularizer: Any = None, recurrent_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, recurrent_constraint: Any = None,
                 bias_constraint: Any = None, dropout: float = 0.0,
                 recurrent_dropout: float = 0.0, seed: Optional[int] = None,
                 return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        # Performance hints of Keras 2/3 with no meaning here.
        for hint in ('implementation', 'use_cudnn', 'time_major'):
            kwargs.pop(hint, None)
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        where = self._where
        if isinstance(units, bool) or not isinstance(units, (int, numpy.integer)) or units <= 0:
            raise ValueError(f'{where}: argument units: expected a positive int, got {units!r}')
        for arg, rate in (('dropout', dropout), ('recurrent_dropout', recurrent_dropout)):
            if not 0 <= rate < 1:
                raise ValueError(f'{where}: argument {arg}: expected a float in [0, 1), '
                                 f'got {rate!r}')
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
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
        self.go_backwards, self.unroll = bool(go_backwards), bool(unroll)
        self.stateful = bool(stateful)
        # the carried states of a stateful layer (arrays), see call()
        self.states: Optional[list] = None
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.input_spec = InputSpec(ndim=3)

    @property
    def _where(self) -> str:
        return f'{type(self).__name__} "{self.name}"'

    # -- weights --

    def build(self, input_shape: Any) -> None:
        features = input_shape[-1]
        if features is None:
            raise ValueError(f'{self._where}: the last dimension of the inputs must be known, '
                             f'got input shape {tuple(input_shape)}')
        width = self._gates * self.units
        self.kernel = self.add_weight('kernel', (features, width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight('recurrent_kernel', (self.units, width),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        bias = None
        if self.use_bias:
            bias = self.add_weight('bias', self._bias_shape(), initializer=self.bias_initializer,
                                   regularizer=self.bias_regularizer,
                                   constraint=self.bias_constraint)
        self.bias = bias
        self.input_spec = InputSpec(ndim=3, axes={-1: features})
        self.built = True

    def _bias_shape(self) -> tuple:
        return (self._gates * self.units,)

    def _input_bias(self) -> Any:
        return self.bias

    # -- the loop --

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Optional[bool] = None) -> Any:
        x = sequences
        batch, steps = x.shape[0], x.shape[1]
        if steps == 0:
            raise ValueError(f'{self._where}: the input has no time steps (shape {x.shape})')
        mask = mask_array(mask) if mask is not None else get_mask(sequences)
        out_mask = mask
        if self.go_backwards:
            x = F.flip(x, 1)
            mask = None if mask is None else mask[:, ::-1]
        if initial_state is None and self.stateful and self.states is not None:
            initial_state = self.states
        states = self._initial_states(x, initial_state)
        xp = x.xp
        if training and self.dropout > 0:
            x = x * self._dropout_mask(xp, (batch, 1, x.shape[2]), self.dropout, x.dtype)
        rec_mask = None
        if training and self.recurrent_dropout > 0:
            rec_mask = self._dropout_mask(xp, (batch, self.units), self.recurrent_dropout,
                                          x.dtype)
        # Project every time step at once; only the recurrent part stays in the loop.
        projected = F.linear(x, F.transpose(self.kernel), self._input_bias(), n_batch_axes=2)
        outputs = []
        previous = Variable(xp.zeros((batch, self.units), x.dtype), requires_grad=False)
        for t, xw in enumerate(F.separate(projected, axis=1)):
            h = states[0] if rec_mask is None else states[0] * rec_mask
            output, new_states = self._step(xw, h, states)
            if mask is not None:
                keep = xp.broadcast_to(xp.asarray(mask[:, t:t + 1]), (batch, self.units))
                new_states = [F.where(keep, n, s) for n, s in zip(new_states, states)]
                fallback = previous * 0 if self.zero_output_for_mask else previous
                output = F.where(keep, output, fallback)
            states, previous = new_states, output
            outputs.append(output)
        if self.return_sequences:
            result = F.stack(outputs, axis=1)
            set_mask(result, out_mask)
        else:
            result = outputs[-1]
        if self.stateful:
            # Keras's cross-batch statefulness: the next call starts from these states (as
            # values: no gradient flows into the previous batch).
            self.states = [s.array.copy() for s in states]
        if self.return_state:
            return [result] + list(states)
        return result

    def reset_states(self, states: Any = None) -> None:
        """Forget the carried states of a stateful layer (zeros at the next call), or set
        them to ``states``."""
        if states is None:
            self.states = None
            return
        states = states if isinstance(states, (list, tuple)) else [states]
        self.states = [s.array.copy() if isinstance(s, Variable) else numpy.asarray(s)
                       for s in states]

    reset_state = reset_states

    def _dropout_mask(self, xp: Any, shape: tuple, rate: float, dtype: Any) -> Any:
        rng = self._rng if self._rng is not None else numpy.random
        keep = rng.random(shape) >= rate
        return xp.asarray((keep / (1.0 - rate)).astype(dtype))

    def _initial_states(self, x: Any, initial_state: Any) -> list:
        batch, xp = x.shape[0], x.xp
        if initial_state is None:
            return [Variable(xp.zeros((batch, self.units), x.dtype), requires_grad=False)
                    for _ in range(self._n_states)]
        if not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        if len(initial_state) != self._n_states:
            raise ValueError(f'{self._where}: initial_state: expected {self._n_states} '
                             f'state(s), got {len(initial_state)}')
        states = []
        for s in initial_state:
            s = s if isinstance(s, Variable) else Variable(xp.asarray(s, x.dtype),
                                                           requires_grad=False)
            if tuple(s.shape) != (batch, self.units):
                raise ValueError(f'{self._where}: initial_state: expected states of shape '
                                 f'{(batch, self.units)}, got {tuple(s.shape)}')
            states.append(s)
        return states

    # -- shapes and config --

    def compute_output_shape(self, input_shape: Any) -> Any:
        if isinstance(input_shape, list):
            input_shape = input_shape[0]
        batch = input_shape[0]
        out = (batch, input_shape[1], self.units) if self.return_sequences \
            else (batch, self.units)
        if self.return_state:
            return [out] + [(batch, self.units)] * self._n_states
        return out

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        shape = self.compute_output_shape(tuple(inputs.shape))
        if self.return_state:
            return [KerasTensor(s, self._dtype) for s in shape]
        return KerasTensor(shape, self._dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(
            units=self.units, activation=activations.serialize(self.activation),
            use_bias=self.use_bias,
            kernel_initializer=initializers.serialize(self.kernel_initializer),
            recurrent_initializer=initializers.serialize(self.recurrent_initializer),
            bias_initializer=initializers.serialize(self.bias_initializer),
            kernel_regularizer=regularizers.serialize(self.kernel_regularizer),
            recurrent_regularizer=regularizers.serialize(self.recurrent_regularizer),
            bias_regularizer=regularizers.serialize(self.bias_regularizer),
            dropout=self.dropout, recurrent_dropout=self.recurrent_dropout, seed=self.seed,
            return_sequences=self.return_sequences, return_state=self.return_state,
            go_backwards=self.go_backwards, stateful=self.stateful, unroll=self.unroll)
        if self.zero_output_for_mask:
            config['zero_output_for_mask'] = True
        return config


_RNN_ARGS = """units: Size of the output and of each state.
        activation: Activation of the candidate/output (``'tanh'``).
        use_bias: Whether to use a bias.
        kernel_initializer, recurrent_initializer, bias_initializer: ``'glorot_uniform'``,
            ``'orthogonal'``, ``'zeros'`` by default.
        kernel_regularizer, recurrent_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, recurrent_constraint, bias_constraint: Optional.
        dropout: Fraction of the input features dropped in training (one mask per sequence).
        recurrent_dropout: Fraction of the state units dropped in training before the
            recurrent product (one mask per sequence).
        seed: Seed of the dropout masks (``None``: NumPy's global state).
        return_sequences: Return the output of every step ``(batch, time, units)`` instead of
            the last ``(batch, units)``.
        return_state: Also return the final state(s): ``[output, *states]``.
        go_backwards: Process the sequence in reverse (the returned sequence is reversed too).
        stateful: Carry the final states of each call over as the initial states of the next
            (sample ``i`` of a batch continues sample ``i`` of the previous one);
            ``reset_states()`` forgets them, ``layer.states`` holds them.
        unroll: Accepted and ignored (the loop is always a Python loop).

    Call arguments:
        sequences: ``(batch, time, features)``.
        initial_state: Optional list of initial states, each ``(batch, units)``.
        mask: Optional boolean ``(batch, time)``: masked steps keep the previous states and
            output. The mask of ``Embedding(mask_zero=True)`` is picked up automatically.
        training: Enables the dropouts."""


class SimpleRNN(_RNN):
    __doc__ = """Fully connected recurrent layer: ``h_t = activation(x_t @ kernel + bias +
    h_{t-1} @ recurrent_kernel)``.

    Args:
        """ + _RNN_ARGS + """

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> rnn = keras.layers.SimpleRNN(4, return_sequences=True)
        >>> rnn(np.zeros((2, 5, 3), np.float32)).shape
        (2, 5, 4)
    """
    _gates = 1

    def _step(self, xw: Any, h: Any, states: list) -> tuple:
        y = self.activation(xw + F.matmul(h, self.recurrent_kernel))
        return y, [y]


class LSTM(_RNN):
    __doc__ = """Long short-term memory layer (Hochreiter and Schmidhuber, 1997), Keras's
    formulation: with ``z = x_t @ kernel + h @ recurrent_kernel + bias`` split into ``i, f,
    c, o``, ``c_t = ra(f) * c_{t-1} + ra(i) * activation(c)`` and
    ``h_t = ra(o) * activation(c_t)`` (``ra``: ``recurrent_activation``).

    Args:
        """ + _RNN_ARGS + """
        recurrent_activation: Activation of the gates (``'sigmoid'``).
        unit_forget_bias: Initialize the forget-gate bias to 1.

    Returns ``[output, h, c]`` with ``return_state=True``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> lstm = keras.layers.LSTM(4, return_state=True)
        >>> out, h, c = lstm(np.zeros((2, 5, 3), np.float32))
        >>> out.shape, c.shape
        ((2, 4), (2, 4))
        >>> [w.shape for w in lstm.weights]
        [(3, 16), (4, 16), (16,)]
    """
    _gates = 4
    _n_states = 2

    def __init__(self, units: int, activation: Any = 'tanh',
                 recurrent_activation: Any = 'sigmoid', use_bias: bool = True,
                 kernel_initializer: Any = 'glorot_uniform',
                 recurrent_initializer: Any = 'orthogonal', bias_initializer: Any = 'zeros',
                 unit_forget_bias: bool = True, **kwargs: Any) -> None:
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = bool(unit_forget_bias)

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        if self.bias is not None and self.unit_forget_bias:
            self.bias.array[self.units:2 * self.units] = 1

    def _step(self, xw: Any, h: Any, states: list) -> tuple:
        z = xw + F.matmul(h, self.recurrent_kernel)
        zi, zf, zc, zo = F.split_axis(z, 4, axis=1)
        ra = self.recurrent_activation
        c = ra(zf) * states[1] + ra(zi) * self.activation(zc)
        h_new = ra(zo) * self.activation(c)
        return h_new, [h_new, c]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(recurrent_activation=activations.serialize(self.recurrent_activation),
                      unit_forget_bias=self.unit_forget_bias)
        return config


class GRU(_RNN):
    __doc__ = """Gated recurrent unit (Cho et al., 2014), Keras's formulation with gates
    ``z`` (update), ``r`` (reset), ``h`` (candidate):
    ``h_t = z * h_{t-1} + (1 - z) * activation(x_h + r * (h_{t-1} @ R_h + b_h'))`` when
    ``reset_after`` (the default, with separate input and recurrent biases, bias shape
    ``(2, 3 * units)``), or ``activation(x_h + (r * h_{t-1}) @ R_h)`` otherwise (bias
    ``(3 * units,)``).

    Args:
        """ + _RNN_ARGS + """
        recurrent_activation: Activation of the gates (``'sigmoid'``).
        reset_after: Apply the reset gate after the recurrent product (Keras 3's default).

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> gru = keras.layers.GRU(4)
        >>> gru(np.zeros((2, 5, 3), np.float32)).shape
        (2, 4)
        >>> [w.shape for w in gru.weights]
        [(3, 12), (4, 12), (2, 12)]
    """
    _gates = 3

    def __init__(self, units: int, activation: Any = 'tanh',
                 recurrent_activation: Any = 'sigmoid', use_bias: bool = True,
                 kernel_initializer: Any = 'glorot_uniform',
                 recurrent_initializer: Any = 'orthogonal', bias_initializer: Any = 'zeros',
                 reset_after: bool = True, **kwargs: Any) -> None:
        super().__init__(units, activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = bool(reset_after)

    def _bias_shape(self) -> tuple:
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self) -> Any:
        if self.bias is None or not self.reset_after:
            return self.bias
        return self.bias[0]

    def _step(self, xw: Any, h: Any, states: list) -> tuple:
        u, ra, h_prev = self.units, self.recurrent_activation, states[0]
        xz, xr, xh = F.split_axis(xw, 3, axis=1)
        rk = self.recurrent_kernel
        if self.reset_after:
            inner = F.matmul(h, rk)
            if self.bias is not None:
                inner = inner + self.bias[1]
            rz, rr, rh = F.split_axis(inner, 3, axis=1)
            z, r = ra(xz + rz), ra(xr + rr)
            candidate = self.activation(xh + r * rh)
        else:
            rz, rr = F.split_axis(F.matmul(h, rk[:, :2 * u]), 2, axis=1)
            z, r = ra(xz + rz), ra(xr + rr)
            candidate = self.activation(xh + F.matmul(r * h, rk[:, 2 * u:]))
        h_new = z * h_prev + (1 - z) * candidate
        return h_new, [h_new]

    def get_config(self) -> dict:
        config = super().get_config()
        config.update(recurrent_activation=activations.serialize(self.recurrent_activation),
                      reset_after=self.reset_after)
        return config


def serialize_layer(layer: Layer) -> dict:
    """``{'class_name': ..., 'config': ...}`` of a layer."""
    return {'class_name': type(layer).__name__, 'config': layer.get_config()}


def deserialize_layer(config: dict, custom_objects: Optional[dict] = None) -> Layer:
    """Rebuild a layer from :func:`serialize_layer`'s output (custom classes by name)."""
    import inspect

    from chainlet.keras import layers as layers_module
    name = config['class_name']
    cls = (custom_objects or {}).get(name) or getattr(layers_module, name, None)
    if not (isinstance(cls, type) and issubclass(cls, Layer)):
        raise ValueError(f'Unknown layer class {name!r}: pass it in custom_objects')
    if 'custom_objects' in inspect.signature(cls.from_config).parameters:
        # a from_config that takes custom_objects (checked just above), unlike Layer's
        return cast(Any, cls).from_config(config['config'], custom_objects=custom_objects)
    return cls.from_config(config['config'])


class Bidirectional(Layer):
    """Runs a recurrent layer forwards and a copy backwards and merges their outputs.

    Args:
        layer: A ``SimpleRNN``, ``LSTM`` or ``GRU`` (its configuration is copied into a
            ``forward_layer``; the layer object itself is not reused).
        merge_mode: ``'concat'`` (default), ``'sum'``, ``'mul'``, ``'ave'`` or ``None``
            (return ``[forward, backward]``).
        weights: Optional initial weights (forward layer's, then backward layer's).
        backward_layer: Optional explicit backward layer (with ``go_backwards=True``).

    With ``return_sequences``, the backward outputs are reversed back into input order before
    merging. With ``return_state``, returns ``[merged, *forward_states, *backward_states]``.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> bi = keras.layers.Bidirectional(keras.layers.LSTM(4, return_sequences=True))
        >>> bi(np.zeros((2, 5, 3), np.float32)).shape
        (2, 5, 8)
    """

    _MODES = ('concat', 'sum', 'mul', 'ave', None)

    def __init__(self, layer: Layer, merge_mode: Optional[str] = 'concat', weights: Any = None,
                 backward_layer: Optional[Layer] = None, **kwargs: Any) -> None:
        if isinstance(layer, Layer) and kwargs.get('dtype') is None:
            kwargs['dtype'] = layer.dtype
        super().__init__(**kwargs)
        if not isinstance(layer, _RNN):
            raise ValueError(f'Bidirectional "{self.name}": argument layer: expected a '
                             f'SimpleRNN, LSTM or GRU layer, got {type(layer).__name__}')
        if merge_mode not in self._MODES:
            raise ValueError(f'Bidirectional "{self.name}": argument merge_mode: expected one '
                             f'of {list(self._MODES)}, got {merge_mode!r}')
        config = layer.get_config()
        config['name'] = 'forward_' + layer.name
        # from_config of a recurrent layer's class makes one of that class
        self.forward_layer = cast(_RNN, type(layer).from_config(config))
        if backward_layer is None:
            config = layer.get_config()
            config['name'] = 'backward_' + layer.name
            config['go_backwards'] = not config['go_backwards']
            backward_layer = cast(_RNN, type(layer).from_config(config))
        elif not isinstance(backward_layer, _RNN):
            raise ValueError(f'Bidirectional "{self.name}": argument backward_layer: expected '
                             f'a recurrent layer, got {type(backward_layer).__name__}')
        self.backward_layer = backward_layer
        for sub in (self.forward_layer, self.backward_layer):
            # Masked steps output zeros in the sequences, as Keras arranges for its wrapper.
            sub.zero_output_for_mask = sub.return_sequences
        self.merge_mode = merge_mode
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        self._initial_weights = weights
        self.input_spec = InputSpec(ndim=3)

    def build(self, input_shape: Any) -> None:
        self.forward_layer._maybe_build(input_shape)
        self.backward_layer._maybe_build(input_shape)
        self.built = True
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Optional[bool] = None) -> Any:
        fw_init = bw_init = None
        if initial_state is not None:
            half = len(initial_state) // 2
            fw_init, bw_init = list(initial_state[:half]), list(initial_state[half:])
        if mask is None:
            mask = get_mask(sequences)
        fw = self.forward_layer(sequences, initial_state=fw_init, mask=mask, training=training)
        bw = self.backward_layer(sequences, initial_state=bw_init, mask=mask,
                                 training=training)
        fw_states = bw_states = []
        if self.return_state:
            fw, fw_states = fw[0], fw[1:]
            bw, bw_states = bw[0], bw[1:]
        if self.return_sequences:
            bw = F.flip(bw, 1)
        out: Any  # a Variable, or the list [fw, bw] when merge_mode is None
        if self.merge_mode == 'concat':
            out = F.concat([fw, bw], axis=-1)
        elif self.merge_mode == 'sum':
            out = fw + bw
        elif self.merge_mode == 'mul':
            out = fw * bw
        elif self.merge_mode == 'ave':
            out = (fw + bw) * 0.5
        else:
            out = [fw, bw]
        if self.return_sequences and not isinstance(out, list):
            set_mask(out, mask_array(mask))
        if self.return_state:
            outs = out if isinstance(out, list) else [out]
            return outs + list(fw_states) + list(bw_states)
        return out

    def compute_output_shape(self, input_shape: Any) -> Any:
        fw = self.forward_layer.compute_output_shape(input_shape)
        states = []
        if self.return_state:
            fw, states = fw[0], fw[1:]
        if self.merge_mode == 'concat':
            out = [fw[:-1] + (2 * fw[-1],)]
        elif self.merge_mode is None:
            out = [fw, fw]
        else:
            out = [fw]
        if self.return_state:
            return out + states + states
        return out[0] if len(out) == 1 else out

    def get_config(self) -> dict:
        config = super().get_config()
        config['layer'] = serialize_layer(self.forward_layer)
        config['layer']['config']['name'] = self.forward_layer.name[len('forward_'):]
        config['merge_mode'] = self.merge_mode
        config['backward_layer'] = serialize_layer(self.backward_layer)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> 'Bidirectional':
        config = dict(config)
        config['layer'] = deserialize_layer(config['layer'], custom_objects)
        if config.get('backward_layer') is not None:
            config['backward_layer'] = deserialize_layer(config['backward_layer'],
                                                         custom_objects)
        return cls(**config)


class TimeDistributed(Layer):
    """Applies ``layer`` to every time step: ``(batch, time, ...)`` -> ``(batch, time, ...)``.

    The batch and time axes are merged into one batch axis, ``layer`` runs once, and the result
    is split again, so the same weights serve every step.

    Example:
        >>> import numpy as np
        >>> from chainlet import keras
        >>> td = keras.layers.TimeDistributed(keras.layers.Dense(4))
        >>> td(np.zeros((2, 5, 3), np.float32)).shape
        (2, 5, 4)
    """

    def __init__(self, layer: Layer, **kwargs: Any) -> None:
        if isinstance(layer, Layer) and kwargs.get('dtype') is None:
            kwargs['dtype'] = layer.dtype
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise ValueError(f'TimeDistributed "{self.name}": argument layer: expected a keras '
                             f'Layer, got {type(layer).__name__}')
        self.layer = layer
        self.input_spec = InputSpec(min_ndim=3)

    def build(self, input_shape: Any) -> None:
        self.layer._maybe_build((input_shape[0],) + tuple(input_shape[2:]))
        self.built = True

    def call(self, inputs: Any, training: Optional[bool] = None) -> Any:
        batch, steps = inputs.shape[:2]
        flat = F.reshape(inputs, (batch * steps,) + tuple(inputs.shape[2:]))
        y = self.layer(flat, training=training)
        return F.reshape(y, (batch, steps) + tuple(y.shape[1:]))

    def compute_output_shape(self, input_shape: Any) -> tuple:
        inner = self.layer.compute_output_shape((input_shape[0],) + tuple(input_shape[2:]))
        return (inner[0], input_shape[1]) + tuple(inner[1:])

    def get_config(self) -> dict:
        config = super().get_config()
        config['layer'] = serialize_layer(self.layer)
        return config

    @classmethod
    def from_config(cls, config: dict,
                    custom_objects: Optional[dict] = None) -> 'TimeDistributed':
        config = dict(config)
        config['layer'] = deserialize_layer(config['layer'], custom_objects)
        return cls(**config)
