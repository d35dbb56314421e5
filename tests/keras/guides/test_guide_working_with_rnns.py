"""Keras 3's guide "Working with RNNs" (keras-io ``guides/working_with_rnns.py``, by Scott Zhu
and fchollet, Apache-2.0), adapted: the guide's cells in order, with ``import keras`` replaced
by ``from chainlet import keras``. A ``# changed:`` comment marks every other line that
differs: synthetic MNIST rows and random data in smaller sizes, ``keras.ops``/``keras.tree`` for
the TensorFlow calls of the nested cell, and no ``tf.device``/matplotlib.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


def test_built_in_rnn_layers_outputs_and_states():
    model = keras.Sequential()
    model.add(layers.Embedding(input_dim=1000, output_dim=64))
    model.add(layers.LSTM(128))
    model.add(layers.Dense(10))
    model.build((None, 7))  # changed: added, so that the summary shows shapes
    model.summary()
    assert model.output_shape == (None, 10)

    model = keras.Sequential()
    model.add(layers.Embedding(input_dim=1000, output_dim=64))
    model.add(layers.GRU(256, return_sequences=True))
    model.add(layers.SimpleRNN(128))
    model.add(layers.Dense(10))
    assert model(np.zeros((2, 7))).shape == (2, 10)  # changed: instead of the summary

    encoder_vocab = 1000
    decoder_vocab = 2000
    encoder_input = layers.Input(shape=(None,))
    encoder_embedded = layers.Embedding(input_dim=encoder_vocab, output_dim=64)(encoder_input)
    output, state_h, state_c = layers.LSTM(64, return_state=True, name="encoder")(
        encoder_embedded
    )
    encoder_state = [state_h, state_c]
    decoder_input = layers.Input(shape=(None,))
    decoder_embedded = layers.Embedding(input_dim=decoder_vocab, output_dim=64)(decoder_input)
    decoder_output = layers.LSTM(64, name="decoder")(
        decoder_embedded, initial_state=encoder_state
    )
    output = layers.Dense(10)(decoder_output)
    model = keras.Model([encoder_input, decoder_input], output)
    model.summary()
    out = model([np.random.randint(0, 1000, (3, 4)), np.random.randint(0, 2000, (3, 6))])
    assert out.shape == (3, 10)


def test_cross_batch_statefulness_and_state_reuse():
    paragraph1 = np.random.random((20, 10, 50)).astype(np.float32)
    paragraph2 = np.random.random((20, 10, 50)).astype(np.float32)
    paragraph3 = np.random.random((20, 10, 50)).astype(np.float32)
    lstm_layer = layers.LSTM(64, stateful=True)
    output = lstm_layer(paragraph1)
    output = lstm_layer(paragraph2)
    output = lstm_layer(paragraph3)
    lstm_layer.reset_states()
    # changed: added, after the reset the layer starts again from zero states
    np.testing.assert_allclose(ops.convert_to_numpy(lstm_layer(paragraph1)),
                               ops.convert_to_numpy(
                                   lstm_layer(paragraph1, initial_state=[
                                       np.zeros((20, 64)), np.zeros((20, 64))])),
                               rtol=1e-5, atol=1e-6)
    assert output.shape == (20, 64)

    lstm_layer = layers.LSTM(64, stateful=True)
    output = lstm_layer(paragraph1)
    output = lstm_layer(paragraph2)
    existing_state = lstm_layer.states
    new_lstm_layer = layers.LSTM(64)
    new_output = new_lstm_layer(paragraph3, initial_state=existing_state)
    assert new_output.shape == (20, 64)


def test_bidirectional():
    model = keras.Sequential()
    model.add(
        layers.Bidirectional(layers.LSTM(64, return_sequences=True), input_shape=(5, 10))
    )
    model.add(layers.Bidirectional(layers.LSTM(32)))
    model.add(layers.Dense(10))
    model.summary()
    assert model.output_shape == (None, 10)


def test_lstm_layer_and_rnn_of_lstm_cell():
    batch_size = 64
    input_dim = 28
    units = 64
    output_size = 10

    def build_model(allow_cudnn_kernel=True):
        if allow_cudnn_kernel:
            lstm_layer = keras.layers.LSTM(units, input_shape=(None, input_dim))
        else:
            lstm_layer = keras.layers.RNN(
                keras.layers.LSTMCell(units), input_shape=(None, input_dim)
            )
        model = keras.models.Sequential(
            [
                lstm_layer,
                keras.layers.BatchNormalization(),
                keras.layers.Dense(output_size),
            ]
        )
        return model

    # changed: synthetic MNIST-shaped data (no download), 128 training and 64 test images
    x_train = np.random.randint(0, 256, (128, 28, 28)).astype('uint8')
    y_train = np.random.randint(0, 10, (128,)).astype('uint8')
    x_test = np.random.randint(0, 256, (64, 28, 28)).astype('uint8')
    y_test = np.random.randint(0, 10, (64,)).astype('uint8')
    x_train, x_test = x_train / 255.0, x_test / 255.0
    sample, sample_label = x_train[0], y_train[0]

    model = build_model(allow_cudnn_kernel=True)
    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer="sgd",
        metrics=["accuracy"],
    )
    model.fit(x_train, y_train, validation_data=(x_test, y_test), batch_size=batch_size,
              epochs=1)

    noncudnn_model = build_model(allow_cudnn_kernel=False)
    noncudnn_model.set_weights(model.get_weights())
    noncudnn_model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        optimizer="sgd",
        metrics=["accuracy"],
    )
    # changed: added, the two models compute the same before training on
    np.testing.assert_allclose(noncudnn_model.predict(x_test, verbose=0),
                               model.predict(x_test, verbose=0), rtol=1e-4, atol=1e-5)
    noncudnn_model.fit(x_train, y_train, validation_data=(x_test, y_test),
                       batch_size=batch_size, epochs=1)

    # changed: without tf.device (chainlet runs on the CPU unless the model is moved)
    cpu_model = build_model(allow_cudnn_kernel=True)
    cpu_model.set_weights(model.get_weights())
    result = ops.argmax(cpu_model.predict_on_batch(ops.expand_dims(sample, 0)), axis=1)
    print("Predicted result is: %s, target result is: %s" % (result, sample_label))
    assert result.shape == (1,)


class NestedCell(keras.layers.Layer):
    def __init__(self, unit_1, unit_2, unit_3, **kwargs):
        self.unit_1 = unit_1
        self.unit_2 = unit_2
        self.unit_3 = unit_3
        self.state_size = [unit_1, [unit_2, unit_3]]  # changed: no tf.TensorShape
        self.output_size = [unit_1, [unit_2, unit_3]]  # changed: no tf.TensorShape
        super().__init__(**kwargs)

    def build(self, input_shapes):
        i1 = input_shapes[0][1]
        i2 = input_shapes[1][1]
        i3 = input_shapes[1][2]
        self.kernel_1 = self.add_weight(
            shape=(i1, self.unit_1), initializer="uniform", name="kernel_1"
        )
        self.kernel_2_3 = self.add_weight(
            shape=(i2, i3, self.unit_2, self.unit_3),
            initializer="uniform",
            name="kernel_2_3",
        )

    def call(self, inputs, states):
        input_1, input_2 = keras.tree.flatten(inputs)  # changed: keras.tree, not tf.nest
        s1, s2 = states
        output_1 = ops.matmul(input_1, self.kernel_1)  # changed: ops, not tf
        output_2_3 = ops.einsum("bij,ijkl->bkl", input_2, self.kernel_2_3)  # changed: ops
        state_1 = s1 + output_1
        state_2_3 = s2 + output_2_3
        output = (output_1, output_2_3)
        new_states = (state_1, state_2_3)
        return output, new_states

    def get_config(self):
        return {"unit_1": self.unit_1, "unit_2": self.unit_2, "unit_3": self.unit_3}


def test_nested_inputs_and_outputs():
    unit_1 = 10
    unit_2 = 20
    unit_3 = 30
    i1 = 32
    i2 = 16  # changed: 16 instead of 64 (time)
    i3 = 32
    batch_size = 16  # changed: 16 instead of 64
    num_batches = 2  # changed: 2 instead of 10
    timestep = 5  # changed: 5 instead of 50

    cell = NestedCell(unit_1, unit_2, unit_3)
    rnn = keras.layers.RNN(cell)
    input_1 = keras.Input((None, i1))
    input_2 = keras.Input((None, i2, i3))
    outputs = rnn((input_1, input_2))
    model = keras.models.Model([input_1, input_2], outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["accuracy"])

    input_1_data = np.random.random((batch_size * num_batches, timestep, i1))
    input_2_data = np.random.random((batch_size * num_batches, timestep, i2, i3))
    target_1_data = np.random.random((batch_size * num_batches, unit_1))
    target_2_data = np.random.random((batch_size * num_batches, unit_2, unit_3))
    input_data = [input_1_data, input_2_data]
    target_data = [target_1_data, target_2_data]
    history = model.fit(input_data, target_data, batch_size=batch_size)
    assert np.isfinite(history.history['loss'][0])
