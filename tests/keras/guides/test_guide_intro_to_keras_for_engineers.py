"""Keras 3's guide "Introduction to Keras for engineers"
(``guides/intro_to_keras_for_engineers.py``, by fchollet, Apache-2.0), adapted: the guide's
cells in order, with ``import keras`` replaced by ``from chainlet import keras``. A
``# changed:`` comment marks every other line that differs: synthetic MNIST-shaped data, a
quarter of the convolution channels, fewer samples and epochs. The PyTorch ``DataLoader`` and
``tf.data`` sections are replaced by one ``keras.utils.PyDataset`` (neither library is a
dependency).
"""
from __future__ import annotations

import numpy as np

from chainlet import keras


class MyDense(keras.layers.Layer):
    def __init__(self, units, activation=None, name=None):
        super().__init__(name=name)
        self.units = units
        self.activation = keras.activations.get(activation)

    def build(self, input_shape):
        input_dim = input_shape[-1]
        self.w = self.add_weight(
            shape=(input_dim, self.units),
            initializer=keras.initializers.GlorotNormal(),
            name="kernel",
            trainable=True,
        )
        self.b = self.add_weight(
            shape=(self.units,),
            initializer=keras.initializers.Zeros(),
            name="bias",
            trainable=True,
        )

    def call(self, inputs):
        x = keras.ops.matmul(inputs, self.w) + self.b
        return self.activation(x)


class MyDropout(keras.layers.Layer):
    def __init__(self, rate, name=None):
        super().__init__(name=name)
        self.rate = rate
        self.seed_generator = keras.random.SeedGenerator(1337)

    def call(self, inputs):
        return keras.random.dropout(inputs, self.rate, seed=self.seed_generator)


class MyModel(keras.Model):
    def __init__(self, num_classes):
        super().__init__()
        self.conv_base = keras.Sequential(
            [  # changed: 16 and 32 channels instead of 64 and 128 (time on a CPU)
                keras.layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
                keras.layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
                keras.layers.MaxPooling2D(pool_size=(2, 2)),
                keras.layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
                keras.layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
                keras.layers.GlobalAveragePooling2D(),
            ]
        )
        self.dp = MyDropout(0.5)
        self.dense = MyDense(num_classes, activation="softmax")

    def call(self, x):
        x = self.conv_base(x)
        x = self.dp(x)
        return self.dense(x)


def test_intro_to_keras_for_engineers():
    # changed: synthetic MNIST-shaped data (no download), 256 training and 64 test images
    x_train = np.random.randint(0, 256, (256, 28, 28)).astype('uint8')
    y_train = np.random.randint(0, 10, (256,)).astype('uint8')
    x_test = np.random.randint(0, 256, (64, 28, 28)).astype('uint8')
    y_test = np.random.randint(0, 10, (64,)).astype('uint8')
    x_train = x_train.astype("float32") / 255
    x_test = x_test.astype("float32") / 255
    x_train = np.expand_dims(x_train, -1)
    x_test = np.expand_dims(x_test, -1)
    print("x_train shape:", x_train.shape)
    print("y_train shape:", y_train.shape)

    num_classes = 10
    input_shape = (28, 28, 1)
    model = keras.Sequential(
        [  # changed: 16 and 32 channels instead of 64 and 128 (time on a CPU)
            keras.layers.Input(shape=input_shape),
            keras.layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
            keras.layers.Conv2D(16, kernel_size=(3, 3), activation="relu"),
            keras.layers.MaxPooling2D(pool_size=(2, 2)),
            keras.layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            keras.layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            keras.layers.GlobalAveragePooling2D(),
            keras.layers.Dropout(0.5),
            keras.layers.Dense(num_classes, activation="softmax"),
        ]
    )
    model.summary()
    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(),
        optimizer=keras.optimizers.Adam(learning_rate=1e-3),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")],
    )
    batch_size = 128
    epochs = 3  # changed: 3 epochs instead of 20
    callbacks = [
        keras.callbacks.ModelCheckpoint(filepath="model_at_epoch_{epoch}.keras"),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=2),
    ]
    history = model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs,
                        validation_split=0.15, callbacks=callbacks)
    score = model.evaluate(x_test, y_test, verbose=0)
    assert len(score) == 2 and 'val_acc' in history.history
    model.save("final_model.keras")
    model = keras.saving.load_model("final_model.keras")
    predictions = model.predict(x_test)
    np.testing.assert_allclose(predictions.sum(axis=1), 1.0, rtol=1e-5)

    model = MyModel(num_classes=10)
    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(),
        optimizer=keras.optimizers.Adam(learning_rate=1e-3),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")],
    )
    model.fit(x_train, y_train, batch_size=batch_size, epochs=1, validation_split=0.15)
    assert len(model.trainable_weights) == 10

    # changed: a PyDataset stands in for the guide's PyTorch DataLoader and tf.data.Dataset
    class Batches(keras.utils.PyDataset):
        def __init__(self, x, y, batch_size, **kwargs):
            super().__init__(**kwargs)
            self.x, self.y, self.batch_size = x, y, batch_size

        def __len__(self):
            return int(np.ceil(len(self.x) / self.batch_size))

        def __getitem__(self, i):
            sl = slice(i * self.batch_size, (i + 1) * self.batch_size)
            return self.x[sl], self.y[sl]

    train_dataset = Batches(x_train, y_train, batch_size)
    test_dataset = Batches(x_test, y_test, batch_size)
    model = MyModel(num_classes=10)
    model.compile(
        loss=keras.losses.SparseCategoricalCrossentropy(),
        optimizer=keras.optimizers.Adam(learning_rate=1e-3),
        metrics=[keras.metrics.SparseCategoricalAccuracy(name="acc")],
    )
    history = model.fit(train_dataset, epochs=1, validation_data=test_dataset)
    assert sorted(history.history) == ['acc', 'loss', 'val_acc', 'val_loss']
