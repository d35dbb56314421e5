"""keras.utils image helpers and normalize (issue 31), with Keras 3's behaviour."""
import io

import numpy as np
import pytest

import chainlet
from chainlet import keras

pytest.importorskip('PIL')


def test_save_and_load_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (6, 5, 3)).astype(np.float32)
    path = tmp_path / 'a.png'
    keras.utils.save_img(str(path), img, scale=False)
    back = keras.utils.img_to_array(keras.utils.load_img(path))
    np.testing.assert_array_equal(back, img)
    assert back.dtype == np.float32
    gray = keras.utils.load_img(path, color_mode='grayscale', target_size=(3, 4))
    assert keras.utils.img_to_array(gray).shape == (3, 4, 1)
    assert keras.utils.img_to_array(gray, data_format='channels_first').shape == (1, 3, 4)
    cropped = keras.utils.load_img(path, target_size=(2, 2), keep_aspect_ratio=True)
    assert cropped.size == (2, 2)


def test_array_to_img_scales_and_modes():
    x = np.array([[[0.0], [0.5]], [[1.0], [0.25]]])
    img = keras.utils.array_to_img(x)
    assert img.mode == 'L' and np.asarray(img).tolist() == [[0, 127], [255, 63]]
    rgba = keras.utils.array_to_img(np.zeros((2, 2, 4)))
    assert rgba.mode == 'RGBA'
    assert keras.utils.array_to_img(np.zeros((3, 2, 2)), data_format='channels_first').size \
        == (2, 2)
    assert keras.utils.array_to_img(chainlet.Variable(np.ones((2, 2, 3)))).mode == 'RGB'
    with pytest.raises(ValueError, match='3-D'):
        keras.utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match='channels'):
        keras.utils.array_to_img(np.zeros((2, 2, 2)))


def test_jpeg_from_a_buffer_and_errors():
    buffer = io.BytesIO()
    with pytest.warns(UserWarning, match='JPEG'):
        keras.utils.save_img(buffer, np.zeros((4, 4, 4)), file_format='jpg')
    buffer.seek(0)
    assert keras.utils.load_img(buffer).mode == 'RGB'
    with pytest.raises(ValueError, match='color_mode'):
        keras.utils.load_img(buffer, color_mode='cmyk')
    with pytest.raises(TypeError, match='path'):
        keras.utils.load_img(3)


def test_normalize_numpy_and_tensors():
    x = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_allclose(keras.utils.normalize(x), [[0.6, 0.8], [0, 0]])
    np.testing.assert_allclose(keras.utils.normalize(x, axis=0, order=1),
                               [[1, 1], [0, 0]])
    v = chainlet.Variable(np.array([[3.0, 4.0]]))
    y = keras.utils.normalize(v)
    np.testing.assert_allclose(y.array, [[0.6, 0.8]])


def test_smart_resize_crops_to_the_aspect_ratio():
    x = np.zeros((4, 8, 1), np.float32)
    x[:, 2:6] = 1  # the centre square
    out = keras.preprocessing.image.smart_resize(x, (2, 2))
    np.testing.assert_allclose(np.asarray(out), np.ones((2, 2, 1)))
    assert keras.preprocessing.image.smart_resize(np.zeros((2, 6, 8, 3)), (3, 3)).shape == \
        (2, 3, 3, 3)
