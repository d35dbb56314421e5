"""Regressions found by the audit of the Keras facade (each test names the behaviour it pins)."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import keras


def test_functional_model_input_and_output_return_the_graph_tensors():
    # Keras guide ("extract features"): keras.Model(inputs=model.input, outputs=...)
    inputs = keras.Input(shape=(3,), name='x')
    hidden = keras.layers.Dense(4, name='h')(inputs)
    outputs = keras.layers.Dense(2, name='o')(hidden)
    model = keras.Model(inputs, outputs)
    assert model.input is inputs
    assert model.output is outputs
    features = keras.Model(inputs=model.input, outputs=[layer.output for layer in model.layers])
    values = features(np.ones((1, 3), np.float32))
    assert [v.shape for v in values] == [(1, 3), (1, 4), (1, 2)]
    seq = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
    assert seq.input.shape == (None, 3) and seq.output.shape == (None, 2)
    a, b = keras.Input(shape=(2,)), keras.Input(shape=(2,))
    two = keras.Model([a, b], {'s': keras.layers.add([a, b])})
    assert two.input == [a, b] and list(two.output) == ['s']


def test_regression_target_of_rank_one_against_output_of_width_one():
    # y of shape (N,) with a Dense(1) output: Keras aligns the ranks (no (N, N) broadcast).
    y_pred = np.array([[1.0], [2.0], [4.0]], np.float32)
    y_true = np.array([1.0, 1.0, 1.0], np.float32)
    assert float(keras.losses.MeanSquaredError()(y_true, y_pred).array) == pytest.approx(10 / 3)
    assert keras.losses.mean_absolute_error(y_true, y_pred).shape == (3,)
    assert float(keras.losses.Huber()(y_true[:, None], y_pred[:, 0]).array) == \
        pytest.approx((0 + 0.5 + 2.5) / 3)
    m = keras.metrics.MeanAbsoluteError()
    m.update_state(y_true, y_pred)
    assert m.result() == pytest.approx(4 / 3)
    acc = keras.metrics.Accuracy()
    acc.update_state(np.array([1, 2, 3]), np.array([[1], [0], [3]]))
    assert acc.result() == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match=r'y_true \(3, 2\) and y_pred \(3, 1\)'):
        keras.losses.mean_squared_error(np.zeros((3, 2)), y_pred)


def test_fit_regression_with_flat_targets():
    model = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(1)])
    model.compile('sgd', 'mse', metrics=['mae'])
    x = np.random.default_rng(0).normal(size=(16, 4)).astype(np.float32)
    y = np.random.default_rng(1).normal(size=16).astype(np.float32)
    loss, mae = model.evaluate(x, y, verbose=0)
    pred = model.predict(x, verbose=0)[:, 0]
    assert loss == pytest.approx(float(np.mean((pred - y) ** 2)), rel=1e-5)
    assert mae == pytest.approx(float(np.mean(np.abs(pred - y))), rel=1e-5)
    assert len(model.fit(x, y, epochs=2, verbose=0).history['loss']) == 2


def test_predict_calls_on_predict_batch_begin():
    seen = []

    class Recorder(keras.callbacks.Callback):
        def on_predict_batch_begin(self, batch, logs=None):
            seen.append(('begin', batch))

        def on_predict_batch_end(self, batch, logs=None):
            seen.append(('end', batch))

    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    model.predict(np.zeros((5, 2)), batch_size=4, verbose=0, callbacks=[Recorder()])
    assert seen == [('begin', 0), ('end', 0), ('begin', 1), ('end', 1)]


def test_missing_targets_error_and_add_loss_only_models():
    class Penalty(keras.layers.Layer):
        def call(self, x):
            self.add_loss(F.mean(F.square(x)))
            return x

    inputs = keras.Input(shape=(3,))
    model = keras.Model(inputs, Penalty()(keras.layers.Dense(2)(inputs)))
    x = np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32)
    model.compile('adam')
    assert len(model.fit(x, epochs=1, verbose=0).history['loss']) == 1
    assert model.evaluate(x, verbose=0) > 0
    model.compile('adam', 'mse', metrics=['mae'])
    with pytest.raises(ValueError, match='compiled with a loss, but no targets'):
        model.fit(x, verbose=0)


def test_integer_inputs_are_converted_to_the_float_input_dtype():
    # e.g. uint8 images or lists of ints fed to a model whose Input is float32
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
    model.compile('sgd', 'mse')
    x_int = np.arange(12, dtype=np.uint8).reshape(4, 3)
    expected = model.predict(x_int.astype(np.float32), verbose=0)
    np.testing.assert_allclose(model.predict(x_int, verbose=0), expected, rtol=1e-6)
    np.testing.assert_allclose(model(x_int).array, expected, rtol=1e-6)
    model.fit(x_int, np.zeros((4, 2)), verbose=0)
    inputs = keras.Input(shape=(2,))
    functional = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    assert functional(np.array([[1, 2]])).dtype == np.float32


def test_validation_data_given_as_a_list():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(2)])
    model.compile('sgd', 'mse')
    x, y = np.ones((6, 3), np.float32), np.zeros((6, 2), np.float32)
    history = model.fit(x, y, validation_data=[x, y], verbose=0)
    assert 'val_loss' in history.history


def test_train_on_batch_combines_class_weight_with_sample_weight():
    x = np.ones((4, 2), np.float32)
    y = np.array([0, 1, 0, 1])
    sw = np.array([1.0, 2.0, 3.0, 4.0])
    losses = []
    for kwargs in ({'sample_weight': sw * np.array([1.0, 10.0, 1.0, 10.0])},
                   {'sample_weight': sw, 'class_weight': {0: 1.0, 1: 10.0}}):
        keras.utils.set_random_seed(0)
        model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(2)])
        model.compile(keras.optimizers.SGD(0.0),
                      keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        losses.append(model.train_on_batch(x, y, **kwargs))
    assert losses[1] == pytest.approx(losses[0], rel=1e-6)
