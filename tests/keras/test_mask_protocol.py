"""Keras 3's mask protocol: ``supports_masking`` passes a mask on, ``compute_mask`` makes or
changes one, ``call(..., mask=None)`` receives the inputs' mask; symbolic tensors carry masks
too, so functional models deliver them at run time."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers, ops


class Seen(layers.Layer):
    """Records the mask its call receives."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, inputs, mask=None):
        self.seen.append(None if mask is None else np.asarray(ops.convert_to_numpy(mask)))
        return inputs


class KwargsOnly(layers.Layer):
    def call(self, inputs, **kwargs):
        assert 'mask' not in kwargs   # Keras passes masks only to a named mask parameter
        return inputs


def test_supports_masking_passes_the_mask_and_call_receives_it():
    ids = np.array([[3, 4, 0], [5, 0, 0]])
    x = layers.Embedding(10, 4, mask_zero=True)(ids)
    y = layers.Dense(2)(x)                       # Dense supports masking, as in Keras
    np.testing.assert_array_equal(y._keras_mask, ids != 0)
    seen = Seen()
    seen(y)
    np.testing.assert_array_equal(seen.seen[0], ids != 0)
    KwargsOnly()(y)
    plain = layers.Lambda(lambda t: t * 2)(y)  # no supports_masking: the mask stops here
    assert getattr(plain, '_keras_mask', None) is None


def test_compute_mask_override_and_layer_set_masks_win():
    class FirstStepOnly(layers.Layer):
        def call(self, inputs):
            return inputs

        def compute_mask(self, inputs, mask=None):
            out = np.zeros(inputs.shape[:2], bool)
            out[:, 0] = True
            return out

    y = FirstStepOnly()(np.ones((2, 3, 1), np.float32))
    np.testing.assert_array_equal(y._keras_mask, [[True, False, False]] * 2)
    ids = np.array([[1, 0]])
    emb = layers.Embedding(5, 2, mask_zero=True)(ids)   # Embedding sets its own mask
    np.testing.assert_array_equal(emb._keras_mask, [[True, False]])


def test_masking_layer_zeroes_masked_steps_and_feeds_an_rnn():
    x = np.array([[[1.0, 2.0], [0.0, 0.0], [3.0, 0.0]]], np.float32)
    out = layers.Masking()(x)
    np.testing.assert_array_equal(out._keras_mask, [[True, False, True]])
    np.testing.assert_array_equal(ops.convert_to_numpy(out), x)
    lstm = layers.LSTM(3)
    padded = np.array([[[1.0], [2.0], [9.0]]], np.float32)
    full = ops.convert_to_numpy(lstm(layers.Masking(mask_value=9.0)(padded)))
    short = ops.convert_to_numpy(lstm(padded[:, :2]))
    np.testing.assert_allclose(full, short, rtol=1e-5)
    with pytest.raises(ValueError):
        layers.Masking(mask_value='x')


def test_functional_model_delivers_masks_at_run_time():
    inputs = keras.Input((None,), dtype='int32')
    x = layers.Embedding(10, 4, mask_zero=True)(inputs)
    assert x._keras_mask is not None
    x = layers.Dense(3)(x)
    assert x._keras_mask is not None
    seen = Seen()
    model = keras.Model(inputs, seen(x))
    ids = np.array([[1, 2, 0]])
    model(ids)
    np.testing.assert_array_equal(seen.seen[-1], ids != 0)
