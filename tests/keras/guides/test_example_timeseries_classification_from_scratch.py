"""keras-io's example "Timeseries classification from scratch"
(``examples/timeseries/timeseries_classification_from_scratch.py``, by hfawaz, Apache-2.0),
adapted: the example's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
synthetic FordA-shaped series instead of the download, fewer samples and epochs, and the
matplotlib cells left out (plots only).
"""
from __future__ import annotations

import numpy as np

from chainlet import keras


def test_timeseries_classification_from_scratch():
    # changed: synthetic FordA-shaped data (400 length-176 series with labels -1/1, instead of
    # the 3601 + 1320 downloaded ones): class 1 carries a slow sine, class -1 only noise
    def readucr(n):
        y = np.where(np.random.rand(n) < 0.5, -1, 1)
        t = np.linspace(0, 4 * np.pi, 176)
        x = np.random.randn(n, 176) * 0.5 + (y[:, None] == 1) * np.sin(t)
        x = (x - x.mean(axis=1, keepdims=True)) / x.std(axis=1, keepdims=True)
        return x, y.astype(int)

    x_train, y_train = readucr(300)
    x_test, y_test = readucr(100)

    classes = np.unique(np.concatenate((y_train, y_test), axis=0))
    assert list(classes) == [-1, 1]

    x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
    x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))
    num_classes = len(np.unique(y_train))
    idx = np.random.permutation(len(x_train))
    x_train = x_train[idx]
    y_train = y_train[idx]
    y_train[y_train == -1] = 0
    y_test[y_test == -1] = 0

    def make_model(input_shape):
        input_layer = keras.layers.Input(input_shape)

        conv1 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(input_layer)
        conv1 = keras.layers.BatchNormalization()(conv1)
        conv1 = keras.layers.ReLU()(conv1)

        conv2 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(conv1)
        conv2 = keras.layers.BatchNormalization()(conv2)
        conv2 = keras.layers.ReLU()(conv2)

        conv3 = keras.layers.Conv1D(filters=64, kernel_size=3, padding="same")(conv2)
        conv3 = keras.layers.BatchNormalization()(conv3)
        conv3 = keras.layers.ReLU()(conv3)

        gap = keras.layers.GlobalAveragePooling1D()(conv3)

        output_layer = keras.layers.Dense(num_classes, activation="softmax")(gap)

        return keras.models.Model(inputs=input_layer, outputs=output_layer)

    model = make_model(input_shape=x_train.shape[1:])
    # changed: to_file="model.dot" (the default model.png needs the Graphviz programs)
    keras.utils.plot_model(model, to_file="model.dot", show_shapes=True)

    epochs = 3  # changed: 3 epochs instead of 500
    batch_size = 32

    callbacks = [
        keras.callbacks.ModelCheckpoint(
            "best_model.keras", save_best_only=True, monitor="val_loss"
        ),
        keras.callbacks.ReduceLROnPlateau(
            monitor="val_loss", factor=0.5, patience=20, min_lr=0.0001
        ),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=50, verbose=1),
    ]
    model.compile(
        optimizer="adam",
        loss="sparse_categorical_crossentropy",
        metrics=["sparse_categorical_accuracy"],
    )
    history = model.fit(
        x_train,
        y_train,
        batch_size=batch_size,
        epochs=epochs,
        callbacks=callbacks,
        validation_split=0.2,
        verbose=1,
    )

    model = keras.models.load_model("best_model.keras")
    test_loss, test_acc = model.evaluate(x_test, y_test)
    print("Test accuracy", test_acc)
    print("Test loss", test_loss)
    assert len(history.history["sparse_categorical_accuracy"]) == epochs
    assert test_acc > 0.7  # changed: added; the sine is easy to detect
