"""A functional Keras model on chainlet: two inputs, a shared layer, two outputs.

It starts from the seeds' example::

    inputs = keras.Input(shape=(3,))
    x = keras.layers.Dense(4, activation='relu')(inputs)
    outputs = keras.layers.Dense(5, activation='softmax')(x)

and grows it: the same ``Dense(4, relu)`` layer (shared weights) encodes two inputs; the codes
are concatenated and feed a 5-class softmax head and a regression head. The model is trained on
generated data with a loss per output and ``loss_weights``; the summary and the final losses are
printed.

Run:
    python examples/keras_functional.py [--epochs 20]
"""
from __future__ import annotations

import argparse

import numpy as np

from chainlet import keras


def make_data(n: int, rng: np.random.Generator) -> tuple:
    """Two 3-feature inputs; the class is the arg-max of a linear map of their sum and the
    regression target the difference of their means."""
    a = rng.normal(size=(n, 3)).astype(np.float32)
    b = rng.normal(size=(n, 3)).astype(np.float32)
    w = rng.normal(size=(3, 5)).astype(np.float32)
    labels = ((a + b) @ w).argmax(axis=1)
    target = (a.mean(axis=1) - b.mean(axis=1))[:, None].astype(np.float32)
    return a, b, labels, target


def build_model() -> keras.Model:
    left = keras.Input(shape=(3,), name='left')
    right = keras.Input(shape=(3,), name='right')
    shared = keras.layers.Dense(4, activation='relu', name='shared_encoder')
    code = keras.layers.Concatenate(name='codes')([shared(left), shared(right)])
    hidden = keras.layers.Dense(16, activation='relu', name='hidden')(code)
    classes = keras.layers.Dense(5, activation='softmax', name='classes')(hidden)
    value = keras.layers.Dense(1, name='value')(keras.layers.Concatenate()([hidden, left,
                                                                            right]))
    return keras.Model(inputs=[left, right], outputs=[classes, value], name='two_by_two')


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=20)
    args = parser.parse_args()
    keras.utils.set_random_seed(0)
    rng = np.random.default_rng(0)
    a, b, labels, target = make_data(2000, rng)

    model = build_model()
    model.summary()
    model.compile(optimizer='adam',
                  loss={'classes': 'sparse_categorical_crossentropy', 'value': 'mse'},
                  loss_weights={'classes': 1.0, 'value': 0.5},
                  metrics={'classes': ['accuracy']})
    history = model.fit({'left': a, 'right': b}, {'classes': labels, 'value': target},
                        batch_size=64, epochs=args.epochs, validation_split=0.2, verbose=0)
    final = {k: round(v[-1], 4) for k, v in history.history.items()}
    print('final losses and metrics:', final)


if __name__ == '__main__':
    main()
