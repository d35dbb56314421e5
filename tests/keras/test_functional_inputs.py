"""Functional's input standardization (issue 31), as Keras's ``_standardize_inputs``: rank
adjusted by one axis of size 1, dtype converted to the Input's, dicts matched by name."""
import numpy as np
import pytest

from chainlet import keras


def _image_model():
    inp = keras.Input((6, 6, 1))
    out = keras.layers.Flatten()(keras.layers.Conv2D(2, 3)(inp))
    return keras.Model(inp, out)


def test_images_without_channel_axis_get_one():
    model = _image_model()
    x = np.random.default_rng(0).random((2, 6, 6)).astype(np.float32)
    np.testing.assert_allclose(model(x).array, model(x[..., None]).array)
    model.compile('sgd', 'mse')
    model.fit(x, np.zeros((2, 32)), verbose=0)
    assert model.predict(x, verbose=0).shape == (2, 32)


def test_extra_axis_of_size_one_is_squeezed():
    inp = keras.Input((3,))
    model = keras.Model(inp, keras.layers.Dense(2)(inp))
    assert model(np.ones((4, 3, 1), np.float32)).shape == (4, 2)


def test_sequential_standardizes_too():
    model = keras.Sequential([keras.Input((6, 6, 1)), keras.layers.Conv2D(2, 3)])
    assert model(np.zeros((1, 6, 6), np.float32)).shape == (1, 4, 4, 2)


def test_wrong_rank_still_raises():
    with pytest.raises(ValueError, match='incompatible'):
        _image_model()(np.zeros((2, 6), np.float32))


def test_dtype_converted_to_the_inputs():
    ids = keras.Input((4,), dtype='int32')
    model = keras.Model(ids, keras.layers.Embedding(10, 3)(ids))
    assert model(np.ones((2, 4), np.float64)).shape == (2, 4, 3)
    inp = keras.Input((2,))
    model = keras.Model(inp, keras.layers.Identity()(inp))
    assert model(np.ones((1, 2), np.uint8)).dtype == np.float32
    assert model(np.ones((1, 2), np.float64)).dtype == np.float32


def test_dicts_matched_by_struct_keys_and_names():
    a, b = keras.Input((3,), name='a'), keras.Input((2,), name='b')
    out = keras.layers.Concatenate()([a, b])
    by_key = keras.Model({'x': a, 'y': b}, out)
    got = by_key({'y': np.ones((1, 2)), 'x': np.zeros((1, 3))}).array
    np.testing.assert_array_equal(got, [[0, 0, 0, 1, 1]])
    by_name = keras.Model([a, b], out)
    got = by_name({'b': np.ones((1, 2)), 'a': np.zeros((1, 3))}).array
    np.testing.assert_array_equal(got, [[0, 0, 0, 1, 1]])
