"""Masks travel on the tensors (``_keras_mask``, Keras's attribute), not in a side table."""
from __future__ import annotations

import gc

import numpy as np
import pytest

import chainlet
from chainlet import keras


def test_embedding_mask_is_an_attribute_of_its_output():
    out = keras.layers.Embedding(10, 4, mask_zero=True)(np.array([[3, 1, 0, 0], [2, 0, 0, 0]]))
    np.testing.assert_array_equal(out._keras_mask,
                                  [[True, True, False, False], [True, False, False, False]])


def test_unmasked_variables_have_no_mask():
    x = chainlet.Variable(np.zeros((2, 3), np.float32))
    with pytest.raises(AttributeError):
        x._keras_mask
    out = keras.layers.Dense(2)(np.zeros((2, 3), np.float32))
    assert getattr(out, '_keras_mask', None) is None


def test_mask_dies_with_its_tensor_and_a_new_tensor_gets_none():
    layer = keras.layers.Embedding(10, 4, mask_zero=True)
    out = layer(np.array([[1, 0]]))
    assert out._keras_mask is not None
    del out
    gc.collect()
    fresh = chainlet.Variable(np.zeros((1, 2), np.float32))
    assert getattr(fresh, '_keras_mask', None) is None
