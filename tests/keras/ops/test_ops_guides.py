"""Patterns from the Keras 3 guides and examples that use keras.ops and keras.random, run with
only the import changed: a VAE sampling layer with a SeedGenerator, the ViT patch layers,
a loss written with ops inside ``add_loss``, and a custom metric-free training step."""
import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


class Sampling(layers.Layer):
    """Draws z from (z_mean, z_log_var) (the VAE guide's layer)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        z_mean, z_log_var = inputs
        batch = ops.shape(z_mean)[0]
        dim = ops.shape(z_mean)[1]
        epsilon = keras.random.normal(shape=(batch, dim), seed=self.seed_generator)
        return z_mean + ops.exp(0.5 * z_log_var) * epsilon


class KLLoss(layers.Layer):
    def call(self, inputs):
        z_mean, z_log_var = inputs
        kl = -0.5 * (1 + z_log_var - ops.square(z_mean) - ops.exp(z_log_var))
        self.add_loss(ops.mean(ops.sum(kl, axis=1)))
        return z_mean


def test_vae_with_sampling_layer_trains():
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(6,))
    h = layers.Dense(8, activation='relu')(inputs)
    z_mean, z_log_var = layers.Dense(2)(h), layers.Dense(2)(h)
    z = Sampling()([KLLoss()([z_mean, z_log_var]), z_log_var])
    outputs = layers.Dense(6)(layers.Dense(8, activation='relu')(z))
    vae = keras.Model(inputs, outputs)
    vae.compile(keras.optimizers.Adam(0.01), 'mse')
    x = np.random.RandomState(0).uniform(0, 1, (64, 6)).astype('f')
    history = vae.fit(x, x, epochs=15, batch_size=16, verbose=0)
    assert history.history['loss'][-1] < history.history['loss'][0]
    assert vae.predict(x[:3], verbose=0).shape == (3, 6)


class Patches(layers.Layer):
    def __init__(self, patch_size, **kwargs):
        super().__init__(**kwargs)
        self.patch_size = patch_size

    def call(self, images):
        input_shape = ops.shape(images)
        batch_size, height, width, channels = input_shape
        num_patches_h = height // self.patch_size
        num_patches_w = width // self.patch_size
        patches = keras.ops.image.extract_patches(images, size=self.patch_size)
        return ops.reshape(patches, (batch_size, num_patches_h * num_patches_w,
                                     self.patch_size * self.patch_size * channels))


class PatchEncoder(layers.Layer):
    def __init__(self, num_patches, projection_dim, **kwargs):
        super().__init__(**kwargs)
        self.num_patches = num_patches
        self.projection = layers.Dense(units=projection_dim)
        self.position_embedding = layers.Embedding(input_dim=num_patches,
                                                   output_dim=projection_dim)

    def call(self, patch):
        positions = ops.expand_dims(ops.arange(start=0, stop=self.num_patches, step=1), axis=0)
        return self.projection(patch) + self.position_embedding(positions)


def test_vit_patch_layers_train():
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(8, 8, 3))
    patches = Patches(4)(inputs)
    encoded = PatchEncoder(4, 16)(patches)
    pooled = ops.mean(encoded, axis=1)
    outputs = layers.Dense(3)(pooled)
    model = keras.Model(inputs, outputs)
    assert patches.shape == (None, 4, 48) and encoded.shape == (None, 4, 16)
    model.compile(keras.optimizers.Adam(0.01),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    rng = np.random.RandomState(0)
    x = rng.uniform(0, 1, (48, 8, 8, 3)).astype('f')
    y = (x[:, :4].mean(axis=(1, 2, 3)) > x[:, 4:].mean(axis=(1, 2, 3))).astype('int32')
    history = model.fit(x, y, epochs=10, batch_size=16, verbose=0)
    assert history.history['loss'][-1] < history.history['loss'][0]


def test_custom_training_loop_with_ops():
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((3,)), layers.Dense(1)])
    optimizer = keras.optimizers.SGD(0.1)
    x = np.random.RandomState(0).uniform(-1, 1, (32, 3)).astype('f')
    y = x @ np.array([[1.0], [-2.0], [0.5]], 'f')
    losses = []
    for _ in range(30):
        loss = ops.mean(ops.square(model(x, training=True) - y))
        model.cleargrads()
        loss.backward()
        optimizer.apply_gradients([(w.grad_var, w) for w in model.trainable_weights])
        losses.append(float(ops.convert_to_numpy(loss)))
    assert losses[-1] < 0.1 * losses[0]
