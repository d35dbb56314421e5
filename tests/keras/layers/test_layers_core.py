"""Core layers (Activation, Dropout, Flatten, Reshape, Permute, RepeatVector, Lambda,
Embedding) and merge layers."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers


def test_activation_and_dropout():
    x = np.array([[-1.0, 0.5, 2.0]], np.float32)
    np.testing.assert_array_equal(layers.Activation('relu')(x).array, [[0, 0.5, 2]])
    drop = layers.Dropout(0.5, seed=1)
    ones = np.ones((50, 40), np.float32)
    np.testing.assert_array_equal(drop(ones).array, ones)
    np.testing.assert_array_equal(drop(ones, training=False).array, ones)
    y = drop(ones, training=True).array
    assert set(np.unique(y)) == {0.0, 2.0} and 0.4 < (y == 0).mean() < 0.6
    again = layers.Dropout(0.5, seed=1)(ones, training=True).array
    np.testing.assert_array_equal(y, again)  # seeded: reproducible
    shared = layers.Dropout(0.5, noise_shape=(None, 1, 4), seed=0)
    z = shared(np.ones((3, 5, 4), np.float32), training=True).array
    assert (z == z[:, :1]).all()  # same mask at every step
    with pytest.raises(ValueError, match='rate'):
        layers.Dropout(1.0)


def test_flatten_reshape_permute_repeat():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(layers.Flatten()(x).array, x.reshape(2, 12))
    np.testing.assert_array_equal(layers.Flatten(data_format='channels_first')(x).array,
                                  x.transpose(0, 2, 1).reshape(2, 12))
    np.testing.assert_array_equal(layers.Reshape((2, -1))(x).array, x.reshape(2, 2, 6))
    with pytest.raises(ValueError, match='Reshape'):
        layers.Reshape((5,))(x)
    np.testing.assert_array_equal(layers.Permute((2, 1))(x).array, x.transpose(0, 2, 1))
    with pytest.raises(ValueError, match='permutation'):
        layers.Permute((1, 3))
    v = x[:, 0]
    np.testing.assert_array_equal(layers.RepeatVector(3)(v).array, np.stack([v] * 3, 1))
    inputs = keras.Input(shape=(3, 4))
    assert layers.Flatten()(inputs).shape == (None, 12)
    assert layers.Reshape((-1, 2))(inputs).shape == (None, 6, 2)
    assert layers.Permute((2, 1))(inputs).shape == (None, 4, 3)
    assert layers.RepeatVector(5)(layers.Flatten()(inputs)).shape == (None, 5, 12)


def double(x):
    return x * 2


def test_lambda():
    x = np.ones((2, 3), np.float32)
    layer = layers.Lambda(double)
    np.testing.assert_array_equal(layer(x).array, 2 * x)
    scaled = layers.Lambda(lambda x, k: x * k, arguments={'k': 3.0})
    np.testing.assert_array_equal(scaled(x).array, 3 * x)
    inputs = keras.Input(shape=(3,))
    assert layers.Lambda(lambda t: t[:, :2])(inputs).shape == (None, 2)
    assert layers.Lambda(double, output_shape=(3,))(inputs).shape == (None, 3)
    config = layer.get_config()
    assert config['function'] == 'double'
    with pytest.raises(ValueError, match='custom_objects'):
        layers.Lambda.from_config(config)
    rebuilt = layers.Lambda.from_config(config, custom_objects={'double': double})
    np.testing.assert_array_equal(rebuilt(x).array, 2 * x)


def test_embedding():
    emb = layers.Embedding(5, 3)
    ids = np.array([[0, 4, 2]])
    y = emb(ids)
    table = emb.get_weights()[0]
    assert table.shape == (5, 3) and np.abs(table).max() <= 0.05
    np.testing.assert_array_equal(y.array[0], table[[0, 4, 2]])
    np.testing.assert_array_equal(emb(ids.astype(np.float32)).array, y.array)
    with pytest.raises(ValueError, match=r'indices must be in \[0, 5\)'):
        emb(np.array([[5]]))
    masked = layers.Embedding(5, 3, mask_zero=True)
    np.testing.assert_array_equal(masked.compute_mask(ids), ids != 0)
    assert layers.Embedding(5, 3).compute_mask(ids) is None
    preset = layers.Embedding(2, 2, weights=[np.eye(2)])
    np.testing.assert_array_equal(preset(np.array([[1]])).array[0], [[0, 1]])
    inputs = keras.Input(shape=(7,), dtype='int32')
    out = layers.Embedding(10, 4)(inputs)
    assert out.shape == (None, 7, 4) and out.dtype == 'float32'
    model = keras.Sequential([keras.Input(shape=(7,)), layers.Embedding(10, 4),
                              layers.GlobalAveragePooling1D(), layers.Dense(1)])
    assert model(np.zeros((2, 7))).shape == (2, 1)


def test_elementwise_merges():
    a = np.array([[1.0, 5.0, -2.0]])
    b = np.array([[3.0, 2.0, 0.5]])
    c = np.array([[0.0, 1.0, 1.0]])
    cases = [(layers.Add, [a, b, c], a + b + c), (layers.Multiply, [a, b, c], a * b * c),
             (layers.Average, [a, b, c], (a + b + c) / 3),
             (layers.Maximum, [a, b, c], np.maximum(np.maximum(a, b), c)),
             (layers.Minimum, [a, b], np.minimum(a, b))]
    for cls, xs, expected in cases:
        np.testing.assert_allclose(cls(dtype='float64')(xs).array, expected)
    np.testing.assert_allclose(layers.Subtract(dtype='float64')([a, b]).array, a - b)
    with pytest.raises(ValueError, match='exactly 2'):
        layers.Subtract()([a, b, c])
    with pytest.raises(ValueError, match=r'incompatible shapes.*\(1, 3\).*\(1, 2\)'):
        layers.Add()([a, a[:, :2]])
    with pytest.raises(ValueError, match='list of inputs'):
        layers.Add()(a)
    # Size-1 axes and lower-rank inputs broadcast.
    x = np.ones((2, 3, 4))
    assert layers.Add()([x, np.ones((2, 1, 4))]).shape == (2, 3, 4)
    assert layers.Multiply()([x, np.ones((2, 4))]).shape == (2, 3, 4)


def test_concatenate_and_dot():
    a = np.arange(6.0).reshape(2, 3)
    b = np.arange(8.0).reshape(2, 4)
    np.testing.assert_array_equal(layers.Concatenate(dtype='float64')([a, b]).array,
                                  np.concatenate([a, b], -1))
    np.testing.assert_array_equal(layers.Concatenate(axis=0, dtype='float64')([a, a]).array,
                                  np.concatenate([a, a], 0))
    with pytest.raises(ValueError, match='matching shapes'):
        layers.Concatenate(axis=0)([a, b])
    c = np.arange(6.0).reshape(2, 3) + 1
    np.testing.assert_allclose(layers.Dot(axes=1, dtype='float64')([a, c]).array,
                               (a * c).sum(1, keepdims=True))
    cos = layers.Dot(axes=1, normalize=True, dtype='float64')([a, c]).array
    expected = (a * c).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(c, axis=1)
    np.testing.assert_allclose(cos[:, 0], expected)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
    np.testing.assert_allclose(layers.Dot(axes=(2, 2), dtype='float64')([x, y]).array,
                               np.einsum('bik,bjk->bij', x, y))
    np.testing.assert_allclose(layers.Dot(axes=(1, 2), dtype='float64')(
        [rng.standard_normal((2, 4, 3)), y]).shape, (2, 3, 5))
    with pytest.raises(ValueError, match='incompatible input shapes'):
        layers.Dot(axes=1)([a, b])
    i1, i2 = keras.Input(shape=(3,)), keras.Input(shape=(4,))
    assert layers.concatenate([i1, i2]).shape == (None, 7)
    assert layers.dot([i1, keras.Input(shape=(3,))], axes=1).shape == (None, 1)
    assert layers.add([i1, keras.Input(shape=(3,))]).shape == (None, 3)
    with pytest.raises(ValueError, match='incompatible'):
        layers.add([i1, i2])
    model = keras.Model([i1, i2], layers.concatenate([i1, i2]))
    assert model([a.astype(np.float32), b.astype(np.float32)]).shape == (2, 7)
