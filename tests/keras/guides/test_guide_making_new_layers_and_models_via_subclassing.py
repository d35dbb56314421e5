"""Keras 3's guide "Making new layers and models via subclassing" (keras-io
``guides/making_new_layers_and_models_via_subclassing.py``, by fchollet, Apache-2.0), adapted:
the guide's cells in order, with ``import keras`` replaced by ``from chainlet import keras``.
A ``# changed:`` comment marks every other line that differs and says why. Where the guide
redefines ``Linear`` several times, the last (most complete) version is kept.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


class Linear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(
            shape=(input_shape[-1], self.units),
            initializer="random_normal",
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,), initializer="random_normal", trainable=True
        )

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


class EagerLinear(keras.layers.Layer):  # changed: the guide's first Linear, renamed
    def __init__(self, units=32, input_dim=32):
        super().__init__()
        self.w = self.add_weight(
            shape=(input_dim, units), initializer="random_normal", trainable=True
        )
        self.b = self.add_weight(shape=(units,), initializer="zeros", trainable=True)

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b


def test_layer_state_and_computation():
    x = ops.ones((2, 2))
    linear_layer = EagerLinear(4, 2)
    y = linear_layer(x)
    print(y)
    assert linear_layer.weights == [linear_layer.w, linear_layer.b]
    np.testing.assert_allclose(ops.convert_to_numpy(y),
                               np.ones((2, 2)) @ ops.convert_to_numpy(linear_layer.w),
                               rtol=1e-6)


def test_non_trainable_weights():
    class ComputeSum(keras.layers.Layer):
        def __init__(self, input_dim):
            super().__init__()
            self.total = self.add_weight(
                initializer="zeros", shape=(input_dim,), trainable=False
            )

        def call(self, inputs):
            self.total.assign_add(ops.sum(inputs, axis=0))
            return self.total

    x = ops.ones((2, 2))
    my_sum = ComputeSum(2)
    y = my_sum(x)
    print(y.numpy())
    y = my_sum(x)
    print(y.numpy())
    np.testing.assert_array_equal(y.numpy(), [4.0, 4.0])
    print("weights:", len(my_sum.weights))
    print("non-trainable weights:", len(my_sum.non_trainable_weights))
    print("trainable_weights:", my_sum.trainable_weights)
    assert (len(my_sum.weights), len(my_sum.non_trainable_weights)) == (1, 1)
    assert my_sum.trainable_weights == []


def test_deferred_weight_creation_and_composition():
    x = ops.ones((2, 2))
    linear_layer = Linear(32)
    y = linear_layer(x)
    assert y.shape == (2, 32)

    class MLPBlock(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.linear_1 = Linear(32)
            self.linear_2 = Linear(32)
            self.linear_3 = Linear(1)

        def call(self, inputs):
            x = self.linear_1(inputs)
            x = keras.activations.relu(x)
            x = self.linear_2(x)
            x = keras.activations.relu(x)
            return self.linear_3(x)

    mlp = MLPBlock()
    y = mlp(ops.ones(shape=(3, 64)))
    print("weights:", len(mlp.weights))
    print("trainable weights:", len(mlp.trainable_weights))
    assert len(mlp.weights) == len(mlp.trainable_weights) == 6


class ActivityRegularizationLayer(keras.layers.Layer):
    def __init__(self, rate=1e-2):
        super().__init__()
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * ops.mean(inputs))
        return inputs


def test_add_loss():
    class OuterLayer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.activity_reg = ActivityRegularizationLayer(1e-2)

        def call(self, inputs):
            return self.activity_reg(inputs)

    layer = OuterLayer()
    assert len(layer.losses) == 0
    _ = layer(ops.zeros((1, 1)))
    assert len(layer.losses) == 1
    _ = layer(ops.zeros((1, 1)))
    assert len(layer.losses) == 1

    class OuterLayerWithKernelRegularizer(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(
                32, kernel_regularizer=keras.regularizers.l2(1e-3)
            )

        def call(self, inputs):
            return self.dense(inputs)

    layer = OuterLayerWithKernelRegularizer()
    _ = layer(ops.zeros((1, 1)))
    print(layer.losses)
    kernel = ops.convert_to_numpy(layer.dense.kernel)
    np.testing.assert_allclose(float(ops.convert_to_numpy(layer.losses[0])),
                               1e-3 * np.sum(kernel ** 2), rtol=1e-5)

    inputs = keras.Input(shape=(3,))
    outputs = ActivityRegularizationLayer()(inputs)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.random.random((2, 3)), np.random.random((2, 3)))
    model.compile(optimizer="adam")
    history = model.fit(np.random.random((2, 3)), np.random.random((2, 3)))
    assert np.isfinite(history.history['loss'][0])


def test_serialization_and_training_argument():
    layer = Linear(64)
    config = layer.get_config()
    print(config)
    new_layer = Linear.from_config(config)
    assert new_layer.units == 64 and config['units'] == 64 and 'name' in config

    class CustomDropout(keras.layers.Layer):
        def __init__(self, rate, **kwargs):
            super().__init__(**kwargs)
            self.rate = rate
            self.seed_generator = keras.random.SeedGenerator(1337)

        def call(self, inputs, training=None):
            if training:
                return keras.random.dropout(
                    inputs, rate=self.rate, seed=self.seed_generator
                )
            return inputs

    layer = CustomDropout(0.5)
    x = ops.ones((4, 8))
    np.testing.assert_array_equal(ops.convert_to_numpy(layer(x)), np.ones((4, 8)))
    out = ops.convert_to_numpy(layer(x, training=True))
    assert set(np.unique(out)) <= {0.0, 2.0} and 0 < out.sum() < 64


class Sampling(layers.Layer):
    """Uses (z_mean, z_log_var) to sample z, the vector encoding a digit."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = ops.shape(z_mean)[0]
        dim = ops.shape(z_mean)[1]
        epsilon = keras.random.normal(shape=(batch, dim), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


class Encoder(layers.Layer):
    """Maps MNIST digits to a triplet (z_mean, z_log_var, z)."""

    def __init__(self, latent_dim=32, intermediate_dim=64, name="encoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_mean = layers.Dense(latent_dim)
        self.dense_log_var = layers.Dense(latent_dim)
        self.sampling = Sampling()

    def call(self, inputs):
        x = self.dense_proj(inputs)
        z_mean = self.dense_mean(x)
        z_log_var = self.dense_log_var(x)
        z = self.sampling((z_mean, z_log_var))
        return z_mean, z_log_var, z


class Decoder(layers.Layer):
    """Converts z, the encoded digit vector, back into a readable digit."""

    def __init__(self, original_dim, intermediate_dim=64, name="decoder", **kwargs):
        super().__init__(name=name, **kwargs)
        self.dense_proj = layers.Dense(intermediate_dim, activation="relu")
        self.dense_output = layers.Dense(original_dim, activation="sigmoid")

    def call(self, inputs):
        x = self.dense_proj(inputs)
        return self.dense_output(x)


class VariationalAutoEncoder(keras.Model):
    """Combines the encoder and decoder into an end-to-end model for training."""

    def __init__(self, original_dim, intermediate_dim=64, latent_dim=32, name="autoencoder",
                 **kwargs):
        super().__init__(name=name, **kwargs)
        self.original_dim = original_dim
        self.encoder = Encoder(latent_dim=latent_dim, intermediate_dim=intermediate_dim)
        self.decoder = Decoder(original_dim, intermediate_dim=intermediate_dim)

    def call(self, inputs):
        z_mean, z_log_var, z = self.encoder(inputs)
        reconstructed = self.decoder(z)
        kl_loss = -0.5 * ops.mean(z_log_var - ops.square(z_mean) - ops.exp(z_log_var) + 1)
        self.add_loss(kl_loss)
        return reconstructed


def test_end_to_end_vae():
    # changed: synthetic MNIST-shaped data (no download), 256 samples instead of 60000
    x_train = np.random.randint(0, 256, (256, 28, 28)).astype('uint8')
    x_train = x_train.reshape(256, 784).astype("float32") / 255  # changed: 256 samples
    original_dim = 784
    vae = VariationalAutoEncoder(784, 64, 32)
    optimizer = keras.optimizers.Adam(learning_rate=1e-3)
    vae.compile(optimizer, loss=keras.losses.MeanSquaredError())
    history = vae.fit(x_train, x_train, epochs=2, batch_size=64)
    assert vae.decoder.dense_output.kernel.shape == (64, original_dim)
    assert history.history['loss'][1] < history.history['loss'][0]
    assert len(vae.losses) == 1
