"""Keras 3's guide "Transfer learning & fine-tuning" (keras-io ``guides/transfer_learning.py``,
by fchollet, Apache-2.0), adapted: the guide's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
MobileNetV2 (no download) instead of Xception with ImageNet weights, synthetic cats-vs-dogs
images of 32x32 in a ``keras.utils.PyDataset`` instead of TFDS/``tf.data``, fewer samples and
epochs, and no plots.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers


def test_freezing_layers():
    layer = keras.layers.Dense(3)
    layer.build((None, 4))
    layer.trainable = False
    print("weights:", len(layer.weights))
    print("trainable_weights:", len(layer.trainable_weights))
    print("non_trainable_weights:", len(layer.non_trainable_weights))
    assert (len(layer.weights), len(layer.trainable_weights),
            len(layer.non_trainable_weights)) == (2, 0, 2)

    layer1 = keras.layers.Dense(3, activation="relu")
    layer2 = keras.layers.Dense(3, activation="sigmoid")
    model = keras.Sequential([keras.Input(shape=(3,)), layer1, layer2])
    layer1.trainable = False
    initial_layer1_weights_values = layer1.get_weights()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.random.random((2, 3)), np.random.random((2, 3)))
    final_layer1_weights_values = layer1.get_weights()
    np.testing.assert_allclose(initial_layer1_weights_values[0],
                               final_layer1_weights_values[0])
    np.testing.assert_allclose(initial_layer1_weights_values[1],
                               final_layer1_weights_values[1])

    inner_model = keras.Sequential(
        [
            keras.Input(shape=(3,)),
            keras.layers.Dense(3, activation="relu"),
            keras.layers.Dense(3, activation="relu"),
        ]
    )
    model = keras.Sequential(
        [
            keras.Input(shape=(3,)),
            inner_model,
            keras.layers.Dense(3, activation="sigmoid"),
        ]
    )
    model.trainable = False
    assert inner_model.trainable == False  # noqa: E712 (the guide's spelling)
    assert inner_model.layers[0].trainable == False  # noqa: E712


def test_end_to_end_fine_tuning():
    # changed: synthetic "cats vs dogs" (label 1 brighter), already 32x32 instead of TFDS
    # images resized to 150x150; 128 training and 32 validation images
    class ImageBatches(keras.utils.PyDataset):
        def __init__(self, n, batch_size, augment=False, seed=0):
            super().__init__()
            rng = np.random.RandomState(seed)
            self.y = rng.randint(0, 2, n).astype('float32')
            self.x = (rng.rand(n, 32, 32, 3) * 200 + self.y[:, None, None, None] * 55)
            self.x = self.x.astype('float32')
            self.batch_size, self.augment = batch_size, augment

        def __len__(self):
            return int(np.ceil(len(self.y) / self.batch_size))

        def __getitem__(self, i):
            sl = slice(i * self.batch_size, (i + 1) * self.batch_size)
            x = self.x[sl]
            if self.augment:
                x = data_augmentation(x)
            return x, self.y[sl]

    resize_fn = keras.layers.Resizing(32, 32)  # changed: 32x32 instead of 150x150
    assert resize_fn(np.zeros((40, 50, 3), 'float32')).shape == (32, 32, 3)

    augmentation_layers = [
        layers.RandomFlip("horizontal"),
        layers.RandomRotation(0.1),
    ]

    def data_augmentation(x):
        for layer in augmentation_layers:
            x = layer(x, training=True)  # changed: training=True (tf.data's map traces it)
        return keras.ops.convert_to_numpy(x)

    batch_size = 64
    train_ds = ImageBatches(128, batch_size, augment=True)
    validation_ds = ImageBatches(32, batch_size, seed=1)

    # changed: MobileNetV2 without downloaded weights instead of Xception (not in
    # chainlet.keras.applications), on 32x32 inputs
    base_model = keras.applications.MobileNetV2(
        weights=None,
        input_shape=(32, 32, 3),
        include_top=False,
    )
    base_model.trainable = False
    inputs = keras.Input(shape=(32, 32, 3))  # changed: 32x32
    scale_layer = keras.layers.Rescaling(scale=1 / 127.5, offset=-1)
    x = scale_layer(inputs)
    x = base_model(x, training=False)
    x = keras.layers.GlobalAveragePooling2D()(x)
    x = keras.layers.Dropout(0.2)(x)
    outputs = keras.layers.Dense(1)(x)
    model = keras.Model(inputs, outputs)
    model.summary(show_trainable=True)

    model.compile(
        optimizer=keras.optimizers.Adam(),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[keras.metrics.BinaryAccuracy()],
    )
    epochs = 1  # changed: 1 instead of 2
    print("Fitting the top layer of the model")
    frozen = [w.numpy() for w in base_model.weights]
    model.fit(train_ds, epochs=epochs, validation_data=validation_ds)
    for before, w in zip(frozen, base_model.weights):
        np.testing.assert_array_equal(before, w.numpy())

    base_model.trainable = True
    model.summary(show_trainable=True)
    model.compile(
        optimizer=keras.optimizers.Adam(1e-5),
        loss=keras.losses.BinaryCrossentropy(from_logits=True),
        metrics=[keras.metrics.BinaryAccuracy()],
    )
    epochs = 1
    print("Fitting the end-to-end model")
    moving = [w.numpy() for w in base_model.non_trainable_weights]
    kernels = [w.numpy() for w in base_model.trainable_weights]
    model.fit(train_ds, epochs=epochs, validation_data=validation_ds)
    # The base model ran with training=False: batch norm statistics did not move, while the
    # now trainable kernels did.
    assert moving
    for before, w in zip(moving, base_model.non_trainable_weights):
        np.testing.assert_array_equal(before, w.numpy())
    assert any(not np.array_equal(k, w.numpy())
               for k, w in zip(kernels, base_model.trainable_weights))

    test_ds = ImageBatches(32, batch_size, seed=2)  # changed: synthetic test set
    print("Test dataset evaluation")
    loss, acc = model.evaluate(test_ds)
    assert 0 <= acc <= 1
