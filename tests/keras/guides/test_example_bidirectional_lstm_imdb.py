"""keras-io's example "Bidirectional LSTM on IMDB" (``examples/nlp/bidirectional_lstm_imdb.py``,
by fchollet, Apache-2.0), adapted: the example's cells in order, with ``import keras`` replaced
by ``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
synthetic IMDB-shaped reviews instead of the download, fewer and shorter reviews, one epoch.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers


def test_bidirectional_lstm_imdb():
    max_features = 20000
    maxlen = 20  # changed: the first 20 words instead of 200 (time)

    inputs = keras.Input(shape=(None,), dtype="int32")
    x = layers.Embedding(max_features, 128)(inputs)
    x = layers.Bidirectional(layers.LSTM(64, return_sequences=True))(x)
    x = layers.Bidirectional(layers.LSTM(64))(x)
    outputs = layers.Dense(1, activation="sigmoid")(x)
    model = keras.Model(inputs, outputs)
    model.summary()

    # changed: synthetic IMDB-shaped data (no download): 96 training and 32 validation
    # reviews, lists of 5-60 word indices
    def load_data(n):
        x = [list(np.random.randint(1, max_features, np.random.randint(5, 60)))
             for _ in range(n)]
        return np.array(x, dtype=object), np.random.randint(0, 2, n)

    (x_train, y_train), (x_val, y_val) = load_data(96), load_data(32)
    print(len(x_train), "Training sequences")
    print(len(x_val), "Validation sequences")
    x_train = keras.preprocessing.sequence.pad_sequences(x_train, maxlen=maxlen)
    x_val = keras.preprocessing.sequence.pad_sequences(x_val, maxlen=maxlen)

    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=32,
                        epochs=1,  # changed: 1 epoch instead of 2
                        validation_data=(x_val, y_val))
    assert sorted(history.history) == ['accuracy', 'loss', 'val_accuracy', 'val_loss']
