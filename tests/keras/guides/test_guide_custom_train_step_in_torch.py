"""Keras 3's guide "Customizing what happens in fit() with PyTorch" (keras-io
``guides/custom_train_step_in_torch.py``, by fchollet, Apache-2.0), adapted: the guide's cells
in order, with ``import keras`` replaced by ``from chainlet import keras``. The torch-only lines
are replaced as docs/keras.md's table says (``with torch.no_grad():`` dropped, ``torch.concat``
/ ``torch.ones`` / ``torch.zeros`` by ``keras.ops``); each is marked ``# changed:``, as are the
synthetic data and the smaller sizes.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


def test_a_first_simple_example():
    class CustomModel(keras.Model):
        def train_step(self, data):
            x, y = data
            self.zero_grad()
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            loss.backward()
            trainable_weights = [v for v in self.trainable_weights]
            gradients = [v.value.grad for v in trainable_weights]
            self.optimizer.apply(gradients, trainable_weights)  # changed: no torch.no_grad()
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    history = model.fit(x, y, epochs=3)
    assert sorted(history.history) == ['loss', 'mae']
    assert history.history['loss'][2] < history.history['loss'][0]


def test_going_lower_level():
    class CustomModel(keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = keras.metrics.Mean(name="loss")
            self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
            self.loss_fn = keras.losses.MeanSquaredError()

        def train_step(self, data):
            x, y = data
            self.zero_grad()
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
            loss.backward()
            trainable_weights = [v for v in self.trainable_weights]
            gradients = [v.value.grad for v in trainable_weights]
            self.optimizer.apply(gradients, trainable_weights)  # changed: no torch.no_grad()
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {
                "loss": self.loss_tracker.result(),
                "mae": self.mae_metric.result(),
            }

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam")
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    history = model.fit(x, y, epochs=5)
    assert history.history['loss'][4] < history.history['loss'][0]


def test_sample_weight_and_class_weight():
    class CustomModel(keras.Model):
        def train_step(self, data):
            if len(data) == 3:
                x, y, sample_weight = data
            else:
                sample_weight = None
                x, y = data
            self.zero_grad()
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight)
            loss.backward()
            trainable_weights = [v for v in self.trainable_weights]
            gradients = [v.value.grad for v in trainable_weights]
            self.optimizer.apply(gradients, trainable_weights)  # changed: no torch.no_grad()
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred, sample_weight=sample_weight)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    sw = np.random.random((1000, 1))
    history = model.fit(x, y, sample_weight=sw, epochs=3)
    assert np.isfinite(history.history['mae'][-1])


def test_own_evaluation_step():
    class CustomModel(keras.Model):
        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            loss = self.compute_loss(y=y, y_pred=y_pred)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(loss="mse", metrics=["mae"])
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    loss, mae = model.evaluate(x, y)
    y_pred = model.predict(x)
    np.testing.assert_allclose(mae, np.mean(np.abs(y_pred - y)), rtol=1e-4)
    # The step's loss tracker averages batch losses unweighted (the last batch has 8 samples)
    batch_losses = [np.mean((y_pred[i:i + 32] - y[i:i + 32]) ** 2) for i in range(0, 1000, 32)]
    np.testing.assert_allclose(loss, np.mean(batch_losses), rtol=1e-4)


class GAN(keras.Model):
    def __init__(self, discriminator, generator, latent_dim):
        super().__init__()
        self.discriminator = discriminator
        self.generator = generator
        self.latent_dim = latent_dim
        self.d_loss_tracker = keras.metrics.Mean(name="d_loss")
        self.g_loss_tracker = keras.metrics.Mean(name="g_loss")
        self.seed_generator = keras.random.SeedGenerator(1337)
        self.built = True

    @property
    def metrics(self):
        return [self.d_loss_tracker, self.g_loss_tracker]

    def compile(self, d_optimizer, g_optimizer, loss_fn):
        super().compile()
        self.d_optimizer = d_optimizer
        self.g_optimizer = g_optimizer
        self.loss_fn = loss_fn

    def train_step(self, real_images):
        # changed: the torch device line is dropped (arrays follow the model's device)
        if isinstance(real_images, tuple):
            real_images = real_images[0]
        batch_size = real_images.shape[0]
        random_latent_vectors = keras.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )
        generated_images = self.generator(random_latent_vectors)
        # changed: ops.concatenate instead of torch.tensor + torch.concat
        combined_images = ops.concatenate([generated_images, real_images], axis=0)
        labels = ops.concatenate(  # changed: ops instead of torch.concat/ones/zeros
            [
                ops.ones((batch_size, 1)),
                ops.zeros((batch_size, 1)),
            ],
            axis=0,
        )
        labels += 0.05 * keras.random.uniform(labels.shape, seed=self.seed_generator)

        self.zero_grad()
        predictions = self.discriminator(combined_images)
        d_loss = self.loss_fn(labels, predictions)
        d_loss.backward()
        grads = [v.value.grad for v in self.discriminator.trainable_weights]
        # changed: no torch.no_grad() around the update
        self.d_optimizer.apply(grads, self.discriminator.trainable_weights)

        random_latent_vectors = keras.random.normal(
            shape=(batch_size, self.latent_dim), seed=self.seed_generator
        )
        misleading_labels = ops.zeros((batch_size, 1))  # changed: ops instead of torch.zeros
        self.zero_grad()
        predictions = self.discriminator(self.generator(random_latent_vectors))
        g_loss = self.loss_fn(misleading_labels, predictions)
        grads = g_loss.backward()
        grads = [v.value.grad for v in self.generator.trainable_weights]
        # changed: no torch.no_grad() around the update
        self.g_optimizer.apply(grads, self.generator.trainable_weights)

        self.d_loss_tracker.update_state(d_loss)
        self.g_loss_tracker.update_state(g_loss)
        return {
            "d_loss": self.d_loss_tracker.result(),
            "g_loss": self.g_loss_tracker.result(),
        }


def test_end_to_end_gan():
    # changed: a quarter of the guide's channels in both networks (16/32 in the discriminator
    # instead of 64/128, 32 instead of 128 in the generator), so that the two steps take
    # seconds on a CPU instead of a minute
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(16, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(32, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )
    latent_dim = 128
    generator = keras.Sequential(
        [
            keras.Input(shape=(latent_dim,)),
            layers.Dense(7 * 7 * 32),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Reshape((7, 7, 32)),
            layers.Conv2DTranspose(32, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2DTranspose(32, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(negative_slope=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )

    batch_size = 64
    # changed: synthetic MNIST-shaped digits (no download), 64 in all (one batch), not 70000
    x_train = np.random.randint(0, 256, (48, 28, 28)).astype('uint8')
    x_test = np.random.randint(0, 256, (16, 28, 28)).astype('uint8')
    all_digits = np.concatenate([x_train, x_test])
    all_digits = all_digits.astype("float32") / 255.0
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))

    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    d_before = [w.numpy() for w in discriminator.weights]
    g_before = [w.numpy() for w in generator.weights]
    # changed: NumPy arrays with batch_size instead of a torch TensorDataset in a DataLoader
    history = gan.fit(all_digits, all_digits, batch_size=batch_size, shuffle=True, epochs=1)
    assert sorted(history.history) == ['d_loss', 'g_loss']
    assert all(not np.array_equal(b, w.numpy()) for b, w in zip(d_before, discriminator.weights))
    assert all(not np.array_equal(b, w.numpy()) for b, w in zip(g_before, generator.weights))
