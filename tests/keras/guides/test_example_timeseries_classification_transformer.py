"""keras-io's example "Timeseries classification with a Transformer model"
(``examples/timeseries/timeseries_classification_transformer.py``, by Theodoros Ntakouris,
Apache-2.0), adapted: the example's cells in order, with ``import keras`` replaced by
``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
synthetic FordA-shaped series (shorter ones) instead of the download, a smaller attention
head size, fewer samples and epochs.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers


def transformer_encoder(inputs, head_size, num_heads, ff_dim, dropout=0):
    x = layers.MultiHeadAttention(
        key_dim=head_size, num_heads=num_heads, dropout=dropout
    )(inputs, inputs)
    x = layers.Dropout(dropout)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    res = x + inputs

    x = layers.Conv1D(filters=ff_dim, kernel_size=1, activation="relu")(res)
    x = layers.Dropout(dropout)(x)
    x = layers.Conv1D(filters=inputs.shape[-1], kernel_size=1)(x)
    x = layers.LayerNormalization(epsilon=1e-6)(x)
    return x + res


def test_timeseries_classification_transformer():
    # changed: synthetic FordA-shaped data (labels -1/1, one channel) of 32 steps instead of
    # 500, 160 training and 40 test series instead of 3601 and 1320
    def readucr(n):
        y = np.where(np.random.rand(n) < 0.5, -1, 1)
        t = np.linspace(0, 4 * np.pi, 32)
        x = np.random.randn(n, 32) * 0.5 + (y[:, None] == 1) * np.sin(t)
        return x, y.astype(int)

    x_train, y_train = readucr(160)
    x_test, y_test = readucr(40)
    x_train = x_train.reshape((x_train.shape[0], x_train.shape[1], 1))
    x_test = x_test.reshape((x_test.shape[0], x_test.shape[1], 1))
    n_classes = len(np.unique(y_train))
    idx = np.random.permutation(len(x_train))
    x_train = x_train[idx]
    y_train = y_train[idx]
    y_train[y_train == -1] = 0
    y_test[y_test == -1] = 0

    def build_model(input_shape, head_size, num_heads, ff_dim, num_transformer_blocks,
                    mlp_units, dropout=0, mlp_dropout=0):
        inputs = keras.Input(shape=input_shape)
        x = inputs
        for _ in range(num_transformer_blocks):
            x = transformer_encoder(x, head_size, num_heads, ff_dim, dropout)
        x = layers.GlobalAveragePooling1D(data_format="channels_last")(x)
        for dim in mlp_units:
            x = layers.Dense(dim, activation="relu")(x)
            x = layers.Dropout(mlp_dropout)(x)
        outputs = layers.Dense(n_classes, activation="softmax")(x)
        return keras.Model(inputs, outputs)

    input_shape = x_train.shape[1:]
    model = build_model(
        input_shape,
        head_size=32,  # changed: 32 instead of 256 (attention time on a CPU)
        num_heads=4,
        ff_dim=4,
        num_transformer_blocks=4,
        mlp_units=[128],
        mlp_dropout=0.4,
        dropout=0.25,
    )
    model.compile(
        loss="sparse_categorical_crossentropy",
        optimizer=keras.optimizers.Adam(learning_rate=1e-4),
        metrics=["sparse_categorical_accuracy"],
    )
    model.summary()
    callbacks = [keras.callbacks.EarlyStopping(patience=10, restore_best_weights=True)]
    history = model.fit(
        x_train,
        y_train,
        validation_split=0.2,
        epochs=2,  # changed: 2 epochs instead of 200
        batch_size=64,
        callbacks=callbacks,
    )
    loss, acc = model.evaluate(x_test, y_test, verbose=1)
    assert len(history.history['val_loss']) == 2 and np.isfinite(loss)
    # The example's model has "less than 100k parameters"
    assert model.count_params() < 100_000
