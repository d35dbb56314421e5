"""keras.layers.RNN with the built-in cells (same numbers and weights as the LSTM/GRU/SimpleRNN
layers), stacked cells, user cells with nested inputs and states, masks and configs."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers, ops


def _np(x):
    return ops.convert_to_numpy(x)


@pytest.mark.parametrize('layer_cls, cell_cls', [
    (layers.LSTM, layers.LSTMCell), (layers.GRU, layers.GRUCell),
    (layers.SimpleRNN, layers.SimpleRNNCell)])
def test_rnn_of_cell_equals_the_layer(layer_cls, cell_cls):
    x = np.random.RandomState(0).randn(3, 5, 4).astype(np.float32)
    layer = layer_cls(6, return_sequences=True, return_state=True)
    rnn = layers.RNN(cell_cls(6), return_sequences=True, return_state=True)
    expected = layer(x)
    rnn(x)
    assert [w.shape for w in rnn.weights] == [w.shape for w in layer.weights]
    rnn.set_weights(layer.get_weights())
    for got, want in zip(rnn(x), expected):
        np.testing.assert_allclose(_np(got), _np(want), rtol=1e-5, atol=1e-6)


def test_rnn_in_a_model_trains_and_round_trips(tmp_path):
    model = keras.Sequential([keras.Input((None, 3)), layers.RNN(layers.LSTMCell(8)),
                              layers.Dense(1)])
    model.compile('adam', 'mse')
    x = np.random.rand(16, 4, 3)
    model.fit(x, np.random.rand(16, 1), epochs=1, verbose=0)
    path = str(tmp_path / 'rnn.keras')
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                               rtol=1e-5)


def test_stacked_cells_and_go_backwards():
    x = np.random.RandomState(1).randn(2, 4, 3).astype(np.float32)
    stacked = layers.RNN([layers.SimpleRNNCell(5), layers.GRUCell(2)], return_state=True)
    out, s1, s2 = stacked(x)
    assert out.shape == (2, 2) and s1.shape == (2, 5) and s2.shape == (2, 2)
    np.testing.assert_allclose(_np(out), _np(s2), rtol=1e-6)
    forward = layers.RNN(layers.SimpleRNNCell(3))
    backward = layers.RNN(layers.SimpleRNNCell(3), go_backwards=True)
    forward(x)
    backward(x)
    backward.set_weights(forward.get_weights())
    np.testing.assert_allclose(_np(backward(x)), _np(forward(x[:, ::-1])), rtol=1e-5)


def test_mask_keeps_the_state_at_masked_steps():
    x = np.random.RandomState(2).randn(2, 5, 3).astype(np.float32)
    rnn = layers.RNN(layers.LSTMCell(4))
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    full = _np(rnn(x, mask=mask))
    np.testing.assert_allclose(full[0], _np(rnn(x[:1, :3]))[0], rtol=1e-5, atol=1e-6)


def test_user_cell_with_nested_inputs_and_states():
    class NestedCell(layers.Layer):
        def __init__(self, unit_1, unit_2, unit_3, **kwargs):
            self.unit_1, self.unit_2, self.unit_3 = unit_1, unit_2, unit_3
            self.state_size = [(unit_1,), (unit_2, unit_3)]
            self.output_size = [(unit_1,), (unit_2, unit_3)]
            super().__init__(**kwargs)

        def build(self, input_shapes):
            i1 = input_shapes[0][1]
            i2, i3 = input_shapes[1][1], input_shapes[1][2]
            self.kernel_1 = self.add_weight(shape=(i1, self.unit_1), initializer="uniform",
                                            name="kernel_1")
            self.kernel_2_3 = self.add_weight(shape=(i2, i3, self.unit_2, self.unit_3),
                                              initializer="uniform", name="kernel_2_3")

        def call(self, inputs, states):
            input_1, input_2 = keras.tree.flatten(inputs)
            s1, s2 = states
            output_1 = ops.matmul(input_1, self.kernel_1)
            output_2_3 = ops.einsum("bij,ijkl->bkl", input_2, self.kernel_2_3)
            state_1 = s1 + output_1
            state_2_3 = s2 + output_2_3
            output = (output_1, output_2_3)
            new_states = (state_1, state_2_3)
            return output, new_states

    cell = NestedCell(4, 2, 3)
    rnn = layers.RNN(cell, return_sequences=True)
    x1 = np.random.rand(5, 6, 7).astype(np.float32)
    x2 = np.random.rand(5, 6, 2, 3).astype(np.float32)
    out1, out2 = rnn((x1, x2))
    assert out1.shape == (5, 6, 4) and out2.shape == (5, 6, 2, 3)
    k1 = cell.kernel_1.numpy()
    np.testing.assert_allclose(_np(out1)[:, 0], x1[:, 0] @ k1, rtol=1e-5)
    input_1 = keras.Input((None, 7))
    input_2 = keras.Input((None, 2, 3))
    outputs = layers.RNN(NestedCell(4, 2, 3))((input_1, input_2))
    model = keras.models.Model([input_1, input_2], outputs)
    model.compile(optimizer="adam", loss="mse")
    model.fit([x1, x2], [np.random.rand(5, 4), np.random.rand(5, 2, 3)], batch_size=5,
              verbose=0)


def test_rnn_argument_checks_and_config():
    with pytest.raises(ValueError, match='state_size'):
        layers.RNN(layers.Dense(3))
    rnn = layers.RNN([layers.LSTMCell(3), layers.GRUCell(2, reset_after=False)],
                     return_sequences=True)
    clone = layers.deserialize(layers.serialize(rnn))
    assert [type(c).__name__ for c in clone.cell.cells] == ['LSTMCell', 'GRUCell']
    assert clone.cell.cells[1].reset_after is False and clone.return_sequences


def test_rnn_stateful_matches_one_long_call():
    seq = np.random.RandomState(4).randn(2, 6, 3).astype(np.float32)
    whole = layers.RNN(layers.GRUCell(4))
    whole(seq)
    stateful = layers.RNN(layers.GRUCell(4), stateful=True)
    stateful(seq[:, :2])
    stateful.set_weights(whole.get_weights())
    stateful.reset_states()
    stateful(seq[:, :2])
    stateful(seq[:, 2:4])
    np.testing.assert_allclose(_np(stateful(seq[:, 4:])), _np(whole(seq)), rtol=1e-5,
                               atol=1e-6)
