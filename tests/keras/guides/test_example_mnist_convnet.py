"""keras-io's example "Simple MNIST convnet" (``examples/vision/mnist_convnet.py``, by fchollet,
Apache-2.0), adapted: the example's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
synthetic MNIST-shaped data (no download), fewer samples and epochs.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers


def test_mnist_convnet():
    num_classes = 10
    input_shape = (28, 28, 1)

    # changed: a synthetic, learnable MNIST stand-in (no download): each class is a bright
    # 7x7 square at its own place, on noise; 384 training and 128 test images
    def synthetic_digits(n):
        y = np.random.randint(0, num_classes, n).astype('uint8')
        x = np.random.randint(0, 64, (n, 28, 28)).astype('uint8')
        for i, label in enumerate(y):
            r, c = divmod(int(label), 4)
            x[i, 2 + 7 * r:9 + 7 * r, 1 + 7 * c:8 + 7 * c] = 255
        return x, y

    (x_train, y_train), (x_test, y_test) = synthetic_digits(384), synthetic_digits(128)

    x_train = x_train.astype("float32") / 255
    x_test = x_test.astype("float32") / 255
    x_train = np.expand_dims(x_train, -1)
    x_test = np.expand_dims(x_test, -1)
    print("x_train shape:", x_train.shape)
    print(x_train.shape[0], "train samples")
    print(x_test.shape[0], "test samples")
    y_train = keras.utils.to_categorical(y_train, num_classes)
    y_test = keras.utils.to_categorical(y_test, num_classes)

    model = keras.Sequential(
        [
            keras.Input(shape=input_shape),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(num_classes, activation="softmax"),
        ]
    )
    model.summary()
    assert model.count_params() == 34826  # the example's summary: 34,826 parameters

    batch_size = 128
    epochs = 3  # changed: 3 epochs instead of 15
    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs, validation_split=0.1)

    score = model.evaluate(x_test, y_test, verbose=0)
    print("Test loss:", score[0])
    print("Test accuracy:", score[1])
    assert score[1] > 0.5  # changed: added; the squares are easy to tell apart
