"""Keras 3's guide "Understanding masking & padding" (keras-io
``guides/understanding_masking_and_padding.py``, by Scott Zhu and fchollet, Apache-2.0),
adapted: the guide's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs;
the checks after the guide's prints are ours.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


def _np(x):
    return ops.convert_to_numpy(x)


raw_inputs = [
    [711, 632, 71],
    [73, 8, 3215, 55, 927],
    [83, 91, 1, 645, 1253, 927],
]


def test_padding_and_mask_generating_layers():
    padded_inputs = keras.utils.pad_sequences(raw_inputs, padding="post")
    print(padded_inputs)
    assert padded_inputs.shape == (3, 6) and padded_inputs[0, 3] == 0

    embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
    masked_output = embedding(padded_inputs)
    print(masked_output._keras_mask)
    np.testing.assert_array_equal(_np(masked_output._keras_mask), padded_inputs != 0)

    masking_layer = layers.Masking()
    unmasked_embedding = ops.cast(
        ops.tile(ops.expand_dims(padded_inputs, axis=-1), [1, 1, 10]),
        dtype="float32",
    )
    masked_embedding = masking_layer(unmasked_embedding)
    print(masked_embedding._keras_mask)
    np.testing.assert_array_equal(_np(masked_embedding._keras_mask), padded_inputs != 0)

    class TemporalSplit(keras.layers.Layer):
        """Split the input tensor into 2 tensors along the time dimension."""

        def call(self, inputs):
            return ops.split(inputs, 2, axis=1)

        def compute_mask(self, inputs, mask=None):
            if mask is None:
                return None
            return ops.split(mask, 2, axis=1)

    first_half, second_half = TemporalSplit()(masked_embedding)
    print(first_half._keras_mask)
    print(second_half._keras_mask)
    np.testing.assert_array_equal(_np(first_half._keras_mask), padded_inputs[:, :3] != 0)
    np.testing.assert_array_equal(_np(second_half._keras_mask), padded_inputs[:, 3:] != 0)


def test_mask_propagation_and_passing_masks():
    model = keras.Sequential(
        [
            layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True),
            layers.LSTM(32),
        ]
    )
    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    outputs = layers.LSTM(32)(x)
    model = keras.Model(inputs, outputs)
    # changed: added, padding after the sequence changes nothing with the mask
    a = model(np.array([[5, 6, 7, 0, 0]]))
    b = model(np.array([[5, 6, 7]]))
    np.testing.assert_allclose(_np(a), _np(b), rtol=1e-5, atol=1e-6)

    class MyLayer(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.embedding = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)
            self.lstm = layers.LSTM(32)

        def call(self, inputs):
            x = self.embedding(inputs)
            mask = self.embedding.compute_mask(inputs)
            output = self.lstm(x, mask=mask)
            return output

    layer = MyLayer()
    x = np.random.random((32, 10)) * 100
    x = x.astype("int32")
    assert layer(x).shape == (32, 32)


def test_custom_mask_layers():
    class CustomEmbedding(keras.layers.Layer):
        def __init__(self, input_dim, output_dim, mask_zero=False, **kwargs):
            super().__init__(**kwargs)
            self.input_dim = input_dim
            self.output_dim = output_dim
            self.mask_zero = mask_zero

        def build(self, input_shape):
            self.embeddings = self.add_weight(
                shape=(self.input_dim, self.output_dim),
                initializer="random_normal",
                dtype="float32",
            )

        def call(self, inputs):
            inputs = ops.cast(inputs, "int32")
            return ops.take(self.embeddings, inputs)

        def compute_mask(self, inputs, mask=None):
            if not self.mask_zero:
                return None
            return ops.not_equal(inputs, 0)

    layer = CustomEmbedding(10, 32, mask_zero=True)
    x = np.random.random((3, 10)) * 9
    x = x.astype("int32")
    y = layer(x)
    mask = layer.compute_mask(x)
    print(mask)
    np.testing.assert_array_equal(_np(mask), x != 0)
    np.testing.assert_array_equal(_np(y._keras_mask), x != 0)

    class MyActivation(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs):
            return ops.relu(inputs)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=5000, output_dim=16, mask_zero=True)(inputs)
    x = MyActivation()(x)
    print("Mask found:", x._keras_mask)
    assert x._keras_mask is not None
    outputs = layers.LSTM(32)(x)
    model = keras.Model(inputs, outputs)
    y = model(np.random.randint(0, 5000, size=(32, 100)))
    assert y.shape == (32, 32)
    # changed: added, the mask reaches the LSTM through MyActivation
    np.testing.assert_allclose(_np(model(np.array([[4, 9, 0, 0]]))),
                               _np(model(np.array([[4, 9]]))), rtol=1e-5, atol=1e-6)

    class TemporalSoftmax(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.supports_masking = True

        def call(self, inputs, mask=None):
            assert mask is not None
            broadcast_float_mask = ops.expand_dims(ops.cast(mask, "float32"), -1)
            inputs_exp = ops.exp(inputs) * broadcast_float_mask
            inputs_sum = ops.sum(inputs_exp * broadcast_float_mask, axis=-1, keepdims=True)
            return inputs_exp / inputs_sum

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(input_dim=10, output_dim=32, mask_zero=True)(inputs)
    x = layers.Dense(1)(x)
    outputs = TemporalSoftmax()(x)
    model = keras.Model(inputs, outputs)
    data = np.random.randint(0, 10, size=(32, 100))
    with np.errstate(invalid='ignore'):  # changed: masked steps are 0 / 0 in the guide's math
        y = model(data)
    assert y.shape == (32, 100, 1)
    # changed: added, unmasked steps are a softmax over one feature (1.0), masked ones 0 / 0
    out = _np(y)[..., 0]
    np.testing.assert_allclose(out[data != 0], 1.0, rtol=1e-6)
    assert np.isnan(out[data == 0]).all()
