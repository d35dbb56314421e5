"""Keras's cell-level recurrent API: ``keras.layers.RNN(cell)`` and the cells
``SimpleRNNCell``, ``LSTMCell``, ``GRUCell`` and ``StackedRNNCells``.

Design: a cell is a layer whose ``call(inputs, states, training=None)`` processes one time step
and returns ``(output, new_states)``; it declares ``state_size`` (an int, a shape, or a list of
them) and optionally ``output_size``. ``RNN`` runs the time loop in Python over any such cell,
including user cells with nested inputs (a structure of ``(batch, time, ...)`` tensors is
sliced step by step) and several states. The three built-in cells reuse the arithmetic and the
weight layout of the ``SimpleRNN``/``LSTM``/``GRU`` layers (``kernel``, ``recurrent_kernel``,
``bias``), so ``RNN(LSTMCell(n))`` computes what ``LSTM(n)`` does and their weights are
interchangeable with ``set_weights``. Masks (``mask=`` or an ``Embedding(mask_zero=True)``
input) keep the previous states and output at masked steps, as the layers do.

Example:
    >>> import numpy as np
    >>> from chainlet import keras
    >>> rnn = keras.layers.RNN(keras.layers.LSTMCell(4), return_sequences=True)
    >>> rnn(np.zeros((2, 5, 3), np.float32)).shape
    (2, 5, 4)
"""
from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any, Optional, Sequence

import chainlet.functions as F
from chainlet import Variable
from chainlet.keras.engine.base_layer import Layer
from chainlet.keras.engine.keras_tensor import KerasTensor
from chainlet.keras.engine.tree import flatten
from chainlet.keras.layers._utils import get_mask, mask_array
from chainlet.keras.layers.recurrent import GRU, LSTM, SimpleRNN
from chainlet.keras.tree import map_structure, pack_sequence_as

__all__ = ['GRUCell', 'LSTMCell', 'RNN', 'SimpleRNNCell', 'StackedRNNCells']


if TYPE_CHECKING:
    # For mypy, the mixin is the recurrent layer it is mixed into (its attributes, super()).
    from chainlet.keras.layers.recurrent import _RNN
    _CellBase = _RNN
else:
    _CellBase = object


class _Cell(_CellBase):
    """Turns a recurrent layer class into its one-step cell (same weights and step)."""

    def __init__(self, units: int, *args: Any, **kwargs: Any) -> None:
        super().__init__(units, *args, **kwargs)
        self.input_spec = None

    def build(self, input_shape: Any) -> None:
        super().build((None, None, input_shape[-1]))
        self.input_spec = None

    @property
    def state_size(self) -> Any:
        return [self.units] * self._n_states if self._n_states > 1 else self.units

    @property
    def output_size(self) -> int:
        return self.units

    # Keras's cell signature (inputs, states), not the recurrent layer's (sequences, ...).
    def call(self, inputs: Any, states: Any,  # type: ignore[override]
             training: Optional[bool] = None) -> Any:
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        xw = F.linear(inputs, F.transpose(self.kernel), self._input_bias())
        output, new_states = self._step(xw, states[0], states)
        return output, new_states if self._n_states > 1 else new_states

    def compute_output_spec(self, inputs: Any, states: Any = None, *args: Any,
                            **kwargs: Any) -> Any:
        batch = inputs.shape[0]
        state = [KerasTensor((batch, self.units), self._dtype)
                 for _ in range(self._n_states)]
        return KerasTensor((batch, self.units), self._dtype), state

    def get_config(self) -> dict:
        config = super().get_config()
        for key in ('return_sequences', 'return_state', 'go_backwards', 'stateful', 'unroll',
                    'zero_output_for_mask'):
            config.pop(key, None)
        return config


class SimpleRNNCell(_Cell, SimpleRNN):
    """One step of :class:`~chainlet.keras.layers.SimpleRNN` (same arguments, no sequence
    options): ``output = new_state = activation(x @ kernel + bias + h @ recurrent_kernel)``."""


class LSTMCell(_Cell, LSTM):
    """One step of :class:`~chainlet.keras.layers.LSTM`; ``states`` is ``[h, c]``."""


class GRUCell(_Cell, GRU):
    """One step of :class:`~chainlet.keras.layers.GRU`; ``states`` is ``[h]``."""


def _sizes(state_size: Any) -> list:
    """``state_size`` as a list of per-state shapes (tuples without the batch axis)."""
    if isinstance(state_size, numbers.Integral):
        return [(int(state_size),)]
    if isinstance(state_size, (list, tuple)) and state_size and all(
            isinstance(s, numbers.Integral) for s in state_size) and \
            not isinstance(state_size, list):
        return [tuple(int(s) for s in state_size)]
    out = []
    for s in state_size:
        out.append((int(s),) if isinstance(s, numbers.Integral) else tuple(int(d) for d in s))
    return out


class StackedRNNCells(Layer):
    """Several cells run one after the other at each step (the output of one is the input of
    the next); the states are the cells' states concatenated in order.

    Args:
        cells: The cells.
    """

    def __init__(self, cells: Sequence[Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cells = list(cells)

    @property
    def state_size(self) -> list:
        return [s for cell in self.cells for s in _sizes(cell.state_size)]

    @property
    def output_size(self) -> Any:
        last = self.cells[-1]
        return getattr(last, 'output_size', _sizes(last.state_size)[0][0])

    def call(self, inputs: Any, states: Any, training: Optional[bool] = None) -> Any:
        states = list(states)
        new_states = []
        x = inputs
        for cell in self.cells:
            n = len(_sizes(cell.state_size))
            own, states = states[:n], states[n:]
            x, out_states = cell(x, own if n > 1 else own[0], training=training)
            out_states = list(out_states) if isinstance(out_states, (list, tuple)) \
                else [out_states]
            new_states.extend(out_states)
        return x, new_states

    def get_config(self) -> dict:
        from chainlet.keras.layers import serialize
        config = super().get_config()
        config.update(cells=[serialize(cell) for cell in self.cells])
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> Any:
        from chainlet.keras.layers import deserialize
        config = dict(config)
        config['cells'] = [deserialize(c, custom_objects) for c in config['cells']]
        return cls(**config)


class RNN(Layer):
    """Runs a cell over the time axis of its input (Keras's ``keras.layers.RNN``).

    Args:
        cell: A cell (a layer with ``call(inputs, states, training=None) -> (output,
            new_states)`` and ``state_size``), or a list of cells (stacked).
        return_sequences: Return every step's output ``(batch, time, ...)`` instead of the
            last.
        return_state: Also return the final states: ``[output, *states]``.
        go_backwards: Process the sequence in reverse.
        stateful: Carry the final states of each call over as the initial states of the next;
            ``reset_states()`` forgets them, ``layer.states`` holds them.
        unroll: Accepted and ignored (the loop is always a Python loop).
        zero_output_for_mask: Output zeros at masked steps instead of the previous output.

    Call arguments:
        sequences: A ``(batch, time, ...)`` tensor or a structure of them.
        initial_state: Optional list of initial states (zeros by default, or the cell's
            ``get_initial_state(batch_size)``).
        mask: Optional boolean ``(batch, time)``.
        training: Passed to the cell.
    """

    def __init__(self, cell: Any, return_sequences: bool = False, return_state: bool = False,
                 go_backwards: bool = False, stateful: bool = False, unroll: bool = False,
                 zero_output_for_mask: bool = False, **kwargs: Any) -> None:
        for hint in ('time_major',):
            kwargs.pop(hint, None)
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, 'state_size') or not callable(getattr(cell, 'call', None)):
            raise ValueError(f'RNN "{self.name}": argument cell: expected a layer with '
                             f'call(inputs, states) and a state_size, got {cell!r}')
        self.cell = cell
        self.return_sequences, self.return_state = bool(return_sequences), bool(return_state)
        self.go_backwards, self.unroll = bool(go_backwards), bool(unroll)
        self.stateful = bool(stateful)
        self.states: Optional[list] = None   # the carried states of a stateful layer (arrays)
        self.zero_output_for_mask = bool(zero_output_for_mask)

    def build(self, input_shape: Any) -> None:
        if not self.cell.built:
            step_shape = _map_shapes(lambda s: (s[0],) + tuple(s[2:]), input_shape)
            self.cell._maybe_build(self.cell._note_build_shape(step_shape))

    def _initial_states(self, batch: int, xp: Any, dtype: Any, initial_state: Any) -> list:
        sizes = _sizes(self.cell.state_size)
        if initial_state is None:
            if hasattr(self.cell, 'get_initial_state'):
                states = self.cell.get_initial_state(batch_size=batch)
                states = list(states) if isinstance(states, (list, tuple)) else [states]
                return [_as_state(s, xp, dtype) for s in states]
            return [Variable(xp.zeros((batch,) + s, dtype), requires_grad=False)
                    for s in sizes]
        if not isinstance(initial_state, (list, tuple)):
            initial_state = [initial_state]
        if len(initial_state) != len(sizes):
            raise ValueError(f'RNN "{self.name}": initial_state: expected {len(sizes)} '
                             f'state(s), got {len(initial_state)}')
        return [_as_state(s, xp, dtype) for s in initial_state]

    def call(self, sequences: Any, initial_state: Any = None, mask: Any = None,
             training: Optional[bool] = None) -> Any:
        leaves = flatten(sequences)
        first = leaves[0]
        batch, steps, xp = first.shape[0], first.shape[1], first.xp
        mask = mask_array(mask) if mask is not None else get_mask(first)
        order = range(steps - 1, -1, -1) if self.go_backwards else range(steps)
        if initial_state is None and self.stateful and self.states is not None:
            initial_state = self.states
        states = self._initial_states(batch, xp, first.dtype, initial_state)
        single_state = len(states) == 1 and isinstance(self.cell.state_size, numbers.Integral)
        outputs, previous = [], None
        for t in order:
            x_t = map_structure(lambda s, t=t: s[:, t], sequences)
            cell_states = states[0] if single_state else states
            output, new_states = self.cell(x_t, cell_states, training=training)
            new_states = list(new_states) if isinstance(new_states, (list, tuple)) \
                else [new_states]
            if mask is not None:
                keep_t = xp.asarray(mask[:, t])

                def keep(new: Any, old: Any) -> Any:
                    k = xp.broadcast_to(keep_t.reshape((batch,) + (1,) * (new.ndim - 1)),
                                        new.shape)
                    return F.where(k, new, old)
                new_states = [keep(n, s) for n, s in zip(new_states, states)]
                if previous is None or self.zero_output_for_mask:
                    fallback = map_structure(lambda o: o * 0, output)
                else:
                    fallback = previous
                output = map_structure(keep, output, fallback)
            states, previous = new_states, output
            outputs.append(output)
        if self.return_sequences:
            flat = [flatten(o) for o in outputs]
            stacked = [F.stack([f[i] for f in flat], axis=1) for i in range(len(flat[0]))]
            result = pack_sequence_as(outputs[0], stacked)
        else:
            result = outputs[-1]
        if self.stateful:  # the next call starts from these values (no gradient across calls)
            self.states = [st.array.copy() for st in states]
        if self.return_state:
            return [result] + list(states)
        return result

    def reset_states(self, states: Any = None) -> None:
        """Forget the carried states (zeros at the next call), or set them to ``states``."""
        if states is None:
            self.states = None
            return
        states = states if isinstance(states, (list, tuple)) else [states]
        self.states = [st.array.copy() if isinstance(st, Variable) else st for st in states]

    reset_state = reset_states

    def compute_output_spec(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self._infer_output_spec(inputs, args, kwargs)

    def get_config(self) -> dict:
        from chainlet.keras.layers import serialize
        config = super().get_config()
        config.update(cell=serialize(self.cell), return_sequences=self.return_sequences,
                      return_state=self.return_state, go_backwards=self.go_backwards,
                      stateful=self.stateful, unroll=self.unroll,
                      zero_output_for_mask=self.zero_output_for_mask)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: Optional[dict] = None) -> Any:
        from chainlet.keras.layers import deserialize
        config = dict(config)
        config['cell'] = deserialize(config['cell'], custom_objects)
        return cls(**config)


def _as_state(s: Any, xp: Any, dtype: Any) -> Any:
    return s if isinstance(s, Variable) else Variable(xp.asarray(s, dtype), requires_grad=False)


def _is_shape(value: Any) -> bool:
    return isinstance(value, tuple) and all(v is None or isinstance(v, numbers.Integral)
                                            for v in value)


def _map_shapes(fn: Any, shapes: Any) -> Any:
    """Apply ``fn`` to each shape (a tuple of ints/None) of a structure of shapes."""
    if _is_shape(shapes):
        return fn(shapes)
    if isinstance(shapes, dict):
        return {k: _map_shapes(fn, v) for k, v in shapes.items()}
    return [_map_shapes(fn, v) for v in shapes]
