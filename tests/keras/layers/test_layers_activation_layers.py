import numpy as np
import pytest

from chainlet import gradient_check, keras
from chainlet.keras import layers


def _x():
    return np.array([[-2.0, -0.5, 0.5, 3.0]], np.float32)


def test_relu_variants():
    np.testing.assert_allclose(layers.ReLU()(_x()).array, [[0, 0, 0.5, 3]])
    np.testing.assert_allclose(layers.ReLU(max_value=1.0)(_x()).array, [[0, 0, 0.5, 1]])
    np.testing.assert_allclose(layers.ReLU(negative_slope=0.1)(_x()).array,
                               [[-0.2, -0.05, 0.5, 3]], rtol=1e-6)
    # threshold: x for x >= threshold, negative_slope * (x - threshold) below it (Keras)
    np.testing.assert_allclose(layers.ReLU(threshold=1.0)(_x()).array, [[0, 0, 0, 3]])
    with pytest.raises(ValueError, match='ReLU: argument max_value: expected a value >= 0'):
        layers.ReLU(max_value=-1)


def test_leaky_relu_elu_softmax_rescaling():
    np.testing.assert_allclose(layers.LeakyReLU()(_x()).array, [[-0.6, -0.15, 0.5, 3]],
                               rtol=1e-6)
    np.testing.assert_allclose(layers.LeakyReLU(alpha=0.1)(_x()).array,
                               [[-0.2, -0.05, 0.5, 3]], rtol=1e-6)
    np.testing.assert_allclose(layers.ELU()(_x()).array,
                               [[np.expm1(-2), np.expm1(-0.5), 0.5, 3]], rtol=1e-6)
    s = layers.Softmax()(_x()).array
    np.testing.assert_allclose(s, np.exp(_x()) / np.exp(_x()).sum(), rtol=1e-6)
    np.testing.assert_allclose(layers.Rescaling(0.5, offset=1.0)(_x()).array,
                               [[0, 0.75, 1.25, 2.5]])


def test_prelu_learns_its_slope_per_feature():
    layer = layers.PReLU(alpha_initializer=keras.initializers.Constant(0.25), dtype='float64')
    x = np.random.default_rng(0).uniform(-1, 1, (3, 4)) + np.sign(
        np.random.default_rng(1).uniform(-1, 1, (3, 4))) * 0.1
    y = layer(x)
    np.testing.assert_allclose(y.array, np.where(x > 0, x, 0.25 * x))
    assert layer.alpha.shape == (4,)
    gy = np.random.default_rng(2).standard_normal((3, 4))
    gradient_check.check_backward(layer, x, gy, params=layer.trainable_weights)
    shared = layers.PReLU(shared_axes=[1])  # one slope per feature, shared over time
    shared(np.zeros((2, 3, 5), np.float32))
    assert shared.alpha.shape == (1, 5)


def test_in_a_model_with_config_round_trip():
    inputs = keras.Input(shape=(4,))
    x = layers.Dense(6)(inputs)
    x = layers.LeakyReLU(negative_slope=0.2)(x)
    x = layers.PReLU()(x)
    x = layers.ReLU(max_value=6.0)(x)
    outputs = layers.Softmax()(layers.Dense(3)(x))
    model = keras.Model(inputs, layers.Rescaling(2.0)(outputs))
    clone = keras.Model.from_config(model.get_config())
    clone.set_weights(model.get_weights())
    data = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(clone.predict(data, verbose=0), model.predict(data, verbose=0),
                               rtol=1e-6)
