"""keras-io's example "Text classification with Transformer"
(``examples/nlp/text_classification_with_transformer.py``, by Apoorv Nandan, Keras 3 version by
Sitam Meur, Apache-2.0), adapted: the example's cells in order, with ``import keras`` replaced
by ``from chainlet import keras``. A ``# changed:`` comment marks every other line that differs:
synthetic IMDB-shaped reviews (lists of word indices of varied length) instead of the download,
fewer and shorter reviews.
"""
from __future__ import annotations

import numpy as np

from chainlet import keras
from chainlet.keras import layers, ops


class TransformerBlock(layers.Layer):
    def __init__(self, embed_dim, num_heads, ff_dim, rate=0.1):
        super().__init__()
        self.att = layers.MultiHeadAttention(num_heads=num_heads, key_dim=embed_dim)
        self.ffn = keras.Sequential(
            [
                layers.Dense(ff_dim, activation="relu"),
                layers.Dense(embed_dim),
            ]
        )
        self.layernorm1 = layers.LayerNormalization(epsilon=1e-6)
        self.layernorm2 = layers.LayerNormalization(epsilon=1e-6)
        self.dropout1 = layers.Dropout(rate)
        self.dropout2 = layers.Dropout(rate)

    def call(self, inputs):
        attn_output = self.att(inputs, inputs)
        attn_output = self.dropout1(attn_output)
        out1 = self.layernorm1(inputs + attn_output)
        ffn_output = self.ffn(out1)
        ffn_output = self.dropout2(ffn_output)
        return self.layernorm2(out1 + ffn_output)


class TokenAndPositionEmbedding(layers.Layer):
    def __init__(self, maxlen, vocab_size, embed_dim):
        super().__init__()
        self.token_emb = layers.Embedding(input_dim=vocab_size, output_dim=embed_dim)
        self.pos_emb = layers.Embedding(input_dim=maxlen, output_dim=embed_dim)

    def call(self, x):
        maxlen = ops.shape(x)[-1]
        positions = ops.arange(start=0, stop=maxlen, step=1)
        positions = self.pos_emb(positions)
        x = self.token_emb(x)
        return x + positions


def test_text_classification_with_transformer():
    vocab_size = 20000
    maxlen = 50  # changed: the first 50 words instead of 200 (time)

    # changed: synthetic IMDB-shaped data (no download): 256 training and 64 validation
    # reviews, lists of 10-120 word indices; positive reviews use word 7 ("good") often
    def load_data(n):
        y = np.random.randint(0, 2, n)
        x = []
        for label in y:
            words = np.random.randint(1, vocab_size, np.random.randint(10, 120))
            if label:
                words[np.random.rand(len(words)) < 0.3] = 7
            x.append(list(words))
        return x, y

    (x_train, y_train), (x_val, y_val) = load_data(256), load_data(64)
    print(len(x_train), "Training sequences")
    print(len(x_val), "Validation sequences")
    x_train = keras.utils.pad_sequences(x_train, maxlen=maxlen)
    x_val = keras.utils.pad_sequences(x_val, maxlen=maxlen)
    assert x_train.shape == (256, maxlen)

    embed_dim = 32
    num_heads = 2
    ff_dim = 32

    inputs = layers.Input(shape=(maxlen,))
    embedding_layer = TokenAndPositionEmbedding(maxlen, vocab_size, embed_dim)
    x = embedding_layer(inputs)
    transformer_block = TransformerBlock(embed_dim, num_heads, ff_dim)
    x = transformer_block(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dropout(0.1)(x)
    x = layers.Dense(20, activation="relu")(x)
    x = layers.Dropout(0.1)(x)
    outputs = layers.Dense(2, activation="softmax")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)

    model.compile(
        optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"]
    )
    history = model.fit(
        x_train, y_train, batch_size=32, epochs=2, validation_data=(x_val, y_val)
    )
    assert sorted(history.history) == ['accuracy', 'loss', 'val_accuracy', 'val_loss']
    assert history.history['loss'][1] < history.history['loss'][0]
