"""Image augmentation/preprocessing layers and the noise/regularization layers, against NumPy
references (Keras 3's semantics: random layers act only with training=True)."""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
from chainlet import gradient_check, keras
from chainlet.keras import layers


def _np(x):
    return x.array if isinstance(x, chainlet.Variable) else np.asarray(x)


def _images(n=3, h=4, w=5, c=2, seed=0):
    return np.random.RandomState(seed).rand(n, h, w, c).astype(np.float32)


def test_random_flip_inference_identity_training_flips_whole_images():
    x = _images(8)
    layer = layers.RandomFlip('horizontal', seed=1)
    np.testing.assert_array_equal(_np(layer(x)), x)
    y = _np(layer(x, training=True))
    flipped = [np.array_equal(y[i], x[i, :, ::-1]) for i in range(8)]
    same = [np.array_equal(y[i], x[i]) for i in range(8)]
    assert all(f or s for f, s in zip(flipped, same)) and any(flipped) and any(same)
    with pytest.raises(ValueError, match='mode'):
        layers.RandomFlip('diagonal')


def test_random_flip_passes_gradients_and_works_unbatched():
    layer = layers.RandomFlip('vertical', seed=3)
    x = chainlet.Variable(_images(2))
    y = layer(x, training=True)
    y.grad = np.ones_like(y.array)
    y.backward()
    np.testing.assert_allclose(x.grad, np.ones_like(x.array))
    assert layer(_images(1)[0], training=True).shape == (4, 5, 2)


def test_random_rotation_half_turn_is_a_double_flip():
    x = _images(2, 5, 5, 1)
    layer = layers.RandomRotation((0.5, 0.5), interpolation='nearest', seed=0)
    np.testing.assert_allclose(_np(layer(x, training=True)), x[:, ::-1, ::-1], atol=1e-6)
    np.testing.assert_array_equal(_np(layer(x)), x)
    with pytest.raises(ValueError, match='lower bound'):
        layers.RandomRotation((0.2, 0.1))


def test_random_translation_shifts_rows_with_constant_fill():
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    layer = layers.RandomTranslation((0.25, 0.25), 0.0, fill_mode='constant',
                                     interpolation='nearest')
    y = _np(layer(x, training=True))[0, :, :, 0]
    np.testing.assert_array_equal(y[1:], x[0, :3, :, 0])
    np.testing.assert_array_equal(y[0], 0)


def test_random_zoom_identity_factor_and_bounds():
    x = _images(2, 6, 6, 3)
    np.testing.assert_allclose(_np(layers.RandomZoom((0.0, 0.0))(x, training=True)), x,
                               atol=1e-6)
    out = layers.RandomZoom(0.3, seed=0)(x, training=True)
    assert out.shape == x.shape
    with pytest.raises(ValueError, match='> -1'):
        layers.RandomZoom((-1.0, 0.0))


def test_random_contrast_keeps_channel_means_and_clips():
    x = (_images(4, 6, 6, 3) * 100 + 50).astype(np.float32)
    layer = layers.RandomContrast(0.5, seed=2)
    y = _np(layer(x, training=True))
    np.testing.assert_allclose(y.mean(axis=(1, 2)), x.mean(axis=(1, 2)), rtol=1e-4)
    ratio = y.std(axis=(1, 2)) / x.std(axis=(1, 2))
    assert ((ratio >= 0.5 - 1e-4) & (ratio <= 1.5 + 1e-4)).all()
    assert np.allclose(ratio, ratio[:, :1])  # one factor per image
    bright = np.full((1, 2, 2, 1), 250.0, np.float32)
    bright[0, 0, 0, 0] = 0.0
    assert _np(layers.RandomContrast((0.0, 1.0), seed=0)(bright, training=True)).max() <= 255
    with pytest.raises(ValueError, match='factor'):
        layers.RandomContrast(1.5)


def test_resizing_center_crop_random_crop():
    x = _images(2, 4, 6, 1)
    assert layers.Resizing(8, 12)(x).shape == (2, 8, 12, 1)
    same_aspect = _np(layers.Resizing(2, 2, crop_to_aspect_ratio=True,
                                      interpolation='nearest')(x))
    assert same_aspect.shape == (2, 2, 2, 1)
    np.testing.assert_array_equal(_np(layers.CenterCrop(2, 2)(x)), x[:, 1:3, 2:4])
    assert layers.CenterCrop(8, 8)(x).shape == (2, 8, 8, 1)  # smaller: resized then cropped
    crop = layers.RandomCrop(3, 3, seed=0)
    y = _np(crop(x, training=True))
    windows = [x[:, i:i + 3, j:j + 3] for i in range(2) for j in range(4)]
    assert any(np.array_equal(y, wdw) for wdw in windows)
    assert crop(x).shape == (2, 3, 3, 1)
    assert layers.Resizing(3, 7)(keras.Input((4, 6, 1))).shape == (None, 3, 7, 1)


def test_augmentation_in_a_model_trains_and_round_trips(tmp_path):
    inputs = keras.Input((8, 8, 1))
    x = layers.RandomFlip('horizontal', seed=0)(inputs)
    x = layers.RandomRotation(0.1, seed=0)(x)
    x = layers.RandomZoom(0.1, seed=0)(x)
    outputs = layers.Dense(1)(layers.Flatten()(x))
    model = keras.Model(inputs, outputs)
    model.compile('adam', 'mse')
    data = _images(16, 8, 8, 1)
    model.fit(data, np.zeros((16, 1)), epochs=1, verbose=0)
    path = str(tmp_path / 'aug.keras')
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_allclose(loaded.predict(data, verbose=0), model.predict(data, verbose=0),
                               rtol=1e-5)
    assert [type(layer).__name__ for layer in loaded.layers[1:4]] == [
        'RandomFlip', 'RandomRotation', 'RandomZoom']


# -- noise and regularization --

def test_gaussian_noise_and_dropout_statistics():
    x = np.ones((200, 50), np.float32)
    noisy = _np(layers.GaussianNoise(0.5, seed=0)(x, training=True)) - 1
    assert abs(noisy.std() - 0.5) < 0.02 and abs(noisy.mean()) < 0.02
    drop = _np(layers.GaussianDropout(0.2, seed=0)(x, training=True))
    assert abs(drop.mean() - 1) < 0.02 and abs(drop.std() - 0.5) < 0.02
    np.testing.assert_array_equal(_np(layers.GaussianNoise(0.5)(x)), x)
    with pytest.raises(ValueError, match='GaussianDropout'):
        layers.GaussianDropout(1.0)


def test_spatial_dropout_drops_whole_channels():
    x = np.ones((4, 5, 5, 6), np.float32)
    y = _np(layers.SpatialDropout2D(0.5, seed=0)(x, training=True))
    per_channel = y.reshape(4, 25, 6)
    assert (per_channel == per_channel[:, :1]).all()
    assert set(np.unique(y)) <= {0.0, 2.0}
    y1 = _np(layers.SpatialDropout1D(0.5, seed=1)(np.ones((3, 7, 4), np.float32),
                                                  training=True))
    assert (y1 == y1[:, :1]).all()
    with pytest.raises(ValueError, match='rank 4'):
        layers.SpatialDropout2D(0.5)(np.ones((2, 3), np.float32), training=True)


def test_activity_regularization_adds_its_loss():
    layer = layers.ActivityRegularization(l1=0.1, l2=0.01)
    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_array_equal(_np(layer(x)), x)
    (loss,) = layer.losses
    np.testing.assert_allclose(float(_np(loss)), 0.1 * 3 + 0.01 * 5, rtol=1e-6)


def test_unit_normalization_and_identity():
    x = np.random.RandomState(0).randn(3, 4).astype(np.float64)
    y = _np(layers.UnitNormalization(dtype='float64')(x))
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), 1.0, rtol=1e-6)
    gradient_check.check_backward(
        lambda v: layers.UnitNormalization(dtype='float64')(v), x, np.ones_like(x),
        atol=1e-5, rtol=1e-4)
    np.testing.assert_allclose(_np(layers.Identity()(x)), x, rtol=1e-6)  # float32 compute


@pytest.mark.parametrize('layer', [
    layers.GaussianNoise(0.1, seed=1), layers.GaussianDropout(0.3),
    layers.SpatialDropout2D(0.2, seed=3), layers.ActivityRegularization(0.1, 0.2),
    layers.UnitNormalization(axis=[1, 2]), layers.Identity(),
    layers.RandomFlip('vertical', seed=4), layers.RandomRotation((-0.1, 0.2), seed=2),
    layers.RandomTranslation(0.1, 0.2, fill_mode='constant'), layers.RandomZoom(0.2, 0.1),
    layers.RandomContrast((0.2, 0.4)), layers.Resizing(4, 5, crop_to_aspect_ratio=True),
    layers.CenterCrop(2, 3), layers.RandomCrop(2, 2, seed=5)])
def test_config_round_trip(layer):
    clone = layers.deserialize(layers.serialize(layer))
    assert type(clone) is type(layer) and clone.get_config() == layer.get_config()
