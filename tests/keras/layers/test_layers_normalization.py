"""BatchNormalization, LayerNormalization and GroupNormalization against NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import keras
from chainlet.keras import layers


def test_batch_normalization_training_uses_batch_stats_and_updates_moving():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3, 3, 4)) * 3 + 1
    bn = layers.BatchNormalization(momentum=0.9, dtype='float64')
    bn(x[:1])  # build
    gamma, beta = rng.standard_normal(4), rng.standard_normal(4)
    bn.set_weights([gamma, beta, np.zeros(4), np.ones(4)])
    y = bn(x, training=True).array
    mean, var = x.mean((0, 1, 2)), x.var((0, 1, 2))
    np.testing.assert_allclose(y, gamma * (x - mean) / np.sqrt(var + 1e-3) + beta, atol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.array, 0.1 * mean)
    np.testing.assert_allclose(bn.moving_variance.array, 0.9 + 0.1 * var)  # biased variance
    moving = [w.copy() for w in bn.get_weights()[2:]]
    # Inference (training None or False): moving statistics, no update.
    for training in (None, False):
        y = bn(x, training=training).array
        expected = gamma * (x - moving[0]) / np.sqrt(moving[1] + 1e-3) + beta
        np.testing.assert_allclose(y, expected, atol=1e-12)
    np.testing.assert_array_equal(bn.get_weights()[2], moving[0])


def test_batch_normalization_weights_and_frozen_layer():
    bn = layers.BatchNormalization()
    bn(np.zeros((2, 5), np.float32))
    assert [w.name for w in bn.weights] == ['gamma', 'beta', 'moving_mean', 'moving_variance']
    assert [w.name for w in bn.trainable_weights] == ['gamma', 'beta']
    bn.trainable = False
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    np.testing.assert_allclose(bn(x, training=True).array, x / np.sqrt(1 + 1e-3), rtol=1e-6)
    np.testing.assert_array_equal(bn.moving_mean.array, np.zeros(5))


def test_batch_normalization_axis_and_no_center_scale():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 2, 2))
    bn = layers.BatchNormalization(axis=1, center=False, scale=False, dtype='float64')
    y = bn(x, training=True).array
    assert bn.weights[0].shape == (3,) and len(bn.weights) == 2
    mean = x.mean((0, 2, 3), keepdims=True)
    var = x.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), atol=1e-12)


def test_batch_normalization_moving_stats_get_no_gradient():
    bn = layers.BatchNormalization()
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    F.sum(F.square(bn(x, training=False))).backward()
    assert bn.moving_mean.grad is None and bn.gamma.grad is not None


def test_layer_normalization():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4))
    ln = layers.LayerNormalization(dtype='float64')
    ln(x)
    gamma, beta = rng.standard_normal(4), rng.standard_normal(4)
    ln.set_weights([gamma, beta])
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(ln(x).array, (x - mean) / np.sqrt(var + 1e-3) * gamma + beta,
                               atol=1e-12)
    ln2 = layers.LayerNormalization(axis=[1, 2], dtype='float64')
    y = ln2(x).array
    assert ln2.weights[0].shape == (3, 4)
    mean, var = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-3), atol=1e-12)


def test_group_normalization():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 3, 6))
    gn = layers.GroupNormalization(groups=3, dtype='float64')
    gn(x)
    gamma, beta = rng.standard_normal(6), rng.standard_normal(6)
    gn.set_weights([gamma, beta])
    g = x.reshape(2, 3, 3, 3, 2)
    mean, var = g.mean((1, 2, 4), keepdims=True), g.var((1, 2, 4), keepdims=True)
    expected = ((g - mean) / np.sqrt(var + 1e-3)).reshape(x.shape) * gamma + beta
    np.testing.assert_allclose(gn(x).array, expected, atol=1e-12)
    with pytest.raises(ValueError, match='multiple of groups'):
        layers.GroupNormalization(groups=4)(np.zeros((1, 6), np.float32))
    with pytest.raises(ValueError, match='groups'):
        layers.GroupNormalization(groups=0)


def test_normalization_in_functional_model():
    inputs = keras.Input(shape=(5, 5, 4))
    x = layers.BatchNormalization()(inputs)
    x = layers.GroupNormalization(groups=2)(x)
    outputs = layers.LayerNormalization()(x)
    assert outputs.shape == (None, 5, 5, 4)
    model = keras.Model(inputs, outputs)
    assert model(np.ones((2, 5, 5, 4), np.float32)).shape == (2, 5, 5, 4)
