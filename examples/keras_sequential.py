"""Classify 8x8 handwritten digits with a Keras ``Sequential`` model running on chainlet.

The script is the usual Keras recipe with ``from chainlet import keras`` in place of
``from tensorflow import keras``: ``compile('rmsprop', 'categorical_crossentropy',
metrics=['accuracy'])``, then ``fit`` with ``validation_split=0.2`` and the EarlyStopping,
ModelCheckpoint and CSVLogger callbacks. It reaches >= 95% validation accuracy in a few seconds
on one CPU core.

Run:
    python examples/keras_sequential.py [--epochs 40] [--out DIR]

Without ``--out`` the checkpoint and the log go to a temporary folder that is removed at the end.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np

from chainlet import keras
from chainlet.datasets import get_digits


def load_digits() -> tuple:
    """All 1,797 digits as ``(x, y)``: float32 pixels in [0, 1] and one-hot labels."""
    train, test = get_digits()
    xs, ts = zip(*[train[i] for i in range(len(train))] + [test[i] for i in range(len(test))])
    x = np.stack(xs).astype(np.float32)
    y = keras.utils.to_categorical(np.array(ts), num_classes=10)
    return x, y


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=40)
    parser.add_argument('--out', default=None, help='folder for checkpoints and the CSV log')
    parser.add_argument('--verbose', type=int, default=2)
    args = parser.parse_args()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        train(args.out, args.epochs, args.verbose)
        print(f'outputs in {args.out}')
    else:
        with tempfile.TemporaryDirectory(prefix='keras_sequential_') as out:
            train(out, args.epochs, args.verbose)
        print('the checkpoint and the log were in a temporary folder, now removed '
              '(pass --out DIR to keep them)')


def train(out: str, epochs: int, verbose: int) -> None:
    """Train, checkpoint the best model to ``out/best.keras``, log to ``out/log.csv``, reload."""
    keras.utils.set_random_seed(0)
    x, y = load_digits()
    model = keras.Sequential([
        keras.Input(shape=(64,)),
        keras.layers.Dense(128, activation='relu'),
        keras.layers.Dense(64, activation='relu'),
        keras.layers.Dense(10, activation='softmax'),
    ])
    model.compile('rmsprop', 'categorical_crossentropy', metrics=['accuracy'])
    model.summary()
    callbacks = [
        keras.callbacks.EarlyStopping(monitor='val_accuracy', patience=8,
                                      restore_best_weights=True),
        keras.callbacks.ModelCheckpoint(os.path.join(out, 'best.keras'), monitor='val_accuracy',
                                        save_best_only=True),
        keras.callbacks.CSVLogger(os.path.join(out, 'log.csv')),
    ]
    start = time.perf_counter()
    history = model.fit(x, y, batch_size=32, epochs=epochs, validation_split=0.2,
                        callbacks=callbacks, verbose=verbose)
    seconds = time.perf_counter() - start
    val_acc = max(history.history['val_accuracy'])
    print(f'epochs run: {len(history.history["loss"])}, best val_accuracy: {val_acc:.4f}, '
          f'time: {seconds:.1f}s')
    best = keras.models.load_model(os.path.join(out, 'best.keras'))
    loss, acc = best.evaluate(x[-len(x) // 5:], y[-len(y) // 5:], verbose=0)
    print(f'checkpoint reloaded: val_loss {loss:.4f}, val_accuracy {acc:.4f}')


if __name__ == '__main__':
    main()
