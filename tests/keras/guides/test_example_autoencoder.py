"""keras-io's example "Convolutional Autoencoder For Image Denoising"
(``examples/vision/autoencoder.py``, by Santiago L. Valdarrama, Apache-2.0), adapted: the
example's cells in order, with the ``tensorflow.keras`` imports replaced by ``chainlet.keras``
ones. A ``# changed:`` comment marks every other line that differs: synthetic MNIST-shaped
images instead of the download, fewer images and epochs, and no matplotlib display.
"""
from __future__ import annotations

import numpy as np

from chainlet.keras.layers import Conv2D, Input, MaxPooling2D, UpSampling2D
from chainlet.keras.models import Model


def preprocess(dataset):
    """Normalizes the supplied dataset and reshapes it into the appropriate format."""
    dataset = dataset.astype("float32") / 255.0
    dataset = np.reshape(dataset, (len(dataset), 28, 28, 1))
    return dataset


def noise(dataset):
    """Adds random noise to each image in the supplied dataset."""
    noise_factor = 0.4
    noisy_dataset = dataset + noise_factor * np.random.normal(
        loc=0.0, scale=1.0, size=dataset.shape
    )
    return np.clip(noisy_dataset, 0.0, 1.0)


def test_denoising_autoencoder():
    # changed: synthetic MNIST-shaped images (no download): blurry blobs, 64 and 16 images
    def blobs(n):
        yy, xx = np.mgrid[:28, :28]
        centres = np.random.randint(8, 20, (n, 2))
        d = (yy[None] - centres[:, :1, None]) ** 2 + (xx[None] - centres[:, 1:, None]) ** 2
        return (255 * np.exp(-d / 20.0)).astype('uint8')

    (train_dataset, _), (test_dataset, _) = (blobs(64), None), (blobs(16), None)
    train_dataset = preprocess(train_dataset)
    test_dataset = preprocess(test_dataset)
    noisy_train_dataset = noise(train_dataset)
    noisy_test_dataset = noise(test_dataset)

    input = Input(shape=(28, 28, 1))
    x = Conv2D(32, (3, 3), activation="relu", padding="same")(input)
    x = MaxPooling2D((2, 2), padding="same")(x)
    x = Conv2D(32, (3, 3), activation="relu", padding="same")(x)
    x = MaxPooling2D((2, 2), padding="same")(x)
    x = Conv2D(32, (3, 3), activation="relu", padding="same")(x)
    x = UpSampling2D((2, 2))(x)
    x = Conv2D(32, (3, 3), activation="relu", padding="same")(x)
    x = UpSampling2D((2, 2))(x)
    x = Conv2D(1, (3, 3), activation="sigmoid", padding="same")(x)
    autoencoder = Model(input, x)
    autoencoder.compile(optimizer="adam", loss="binary_crossentropy")
    autoencoder.summary()

    history = autoencoder.fit(
        x=train_dataset,
        y=train_dataset,
        epochs=1,  # changed: 1 epoch instead of 50
        batch_size=128,
        shuffle=True,
        validation_data=(test_dataset, test_dataset),
    )
    predictions = autoencoder.predict(test_dataset)
    assert predictions.shape == test_dataset.shape

    history = autoencoder.fit(
        x=noisy_train_dataset,
        y=train_dataset,
        epochs=1,  # changed: 1 epoch instead of 100
        batch_size=128,
        shuffle=True,
        validation_data=(noisy_test_dataset, test_dataset),
    )
    predictions = autoencoder.predict(noisy_test_dataset)
    assert ((predictions >= 0) & (predictions <= 1)).all()
    assert np.isfinite(history.history['val_loss']).all()
