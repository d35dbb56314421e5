"""keras-io's example "Imbalanced classification: credit card fraud detection"
(``examples/structured_data/imbalanced_classification.py``, by fchollet, Apache-2.0), adapted:
the example's cells in order, with ``import keras`` replaced by ``from chainlet import keras``.
A ``# changed:`` comment marks every other line that differs: a synthetic ``creditcard.csv`` of
the Kaggle file's layout (quoted header, 30 float features, the ``"Class"`` column) written
first, fewer rows, a smaller batch and fewer epochs.
"""
from __future__ import annotations

import os

import numpy as np

from chainlet import keras


def _write_synthetic_creditcard_csv(fname, rows=3000):
    # changed: stands in for the Kaggle download; about 2% frauds, which differ in V1-V3
    names = ['"Time"'] + [f'"V{i}"' for i in range(1, 29)] + ['"Amount"', '"Class"']
    with open(fname, 'w') as f:
        f.write(','.join(names) + '\n')
        for i in range(rows):
            fraud = np.random.rand() < 0.02
            values = np.random.randn(30)
            values[0] = i
            if fraud:
                values[1:4] += 3.0
            f.write(','.join(f'{v:.6f}' for v in values) + f',"{int(fraud)}"\n')


def test_imbalanced_classification():
    fname = "creditcard.csv"  # changed: the synthetic file in the test's directory
    _write_synthetic_creditcard_csv(fname)

    all_features = []
    all_targets = []
    with open(fname) as f:
        for i, line in enumerate(f):
            if i == 0:
                print("HEADER:", line.strip())
                continue
            fields = line.strip().split(",")
            all_features.append([float(v.replace('"', "")) for v in fields[:-1]])
            all_targets.append([int(fields[-1].replace('"', ""))])
            if i == 1:
                print("EXAMPLE FEATURES:", all_features[-1])

    features = np.array(all_features, dtype="float32")
    targets = np.array(all_targets, dtype="uint8")
    print("features.shape:", features.shape)
    print("targets.shape:", targets.shape)

    num_val_samples = int(len(features) * 0.2)
    train_features = features[:-num_val_samples]
    train_targets = targets[:-num_val_samples]
    val_features = features[-num_val_samples:]
    val_targets = targets[-num_val_samples:]
    print("Number of training samples:", len(train_features))
    print("Number of validation samples:", len(val_features))

    counts = np.bincount(train_targets[:, 0])
    print(
        "Number of positive samples in training data: {} ({:.2f}% of total)".format(
            counts[1], 100 * float(counts[1]) / len(train_targets)
        )
    )
    weight_for_0 = 1.0 / counts[0]
    weight_for_1 = 1.0 / counts[1]

    mean = np.mean(train_features, axis=0)
    train_features -= mean
    val_features -= mean
    std = np.std(train_features, axis=0)
    train_features /= std
    val_features /= std

    model = keras.Sequential(
        [
            keras.Input(shape=train_features.shape[1:]),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dropout(0.3),
            keras.layers.Dense(256, activation="relu"),
            keras.layers.Dropout(0.3),
            keras.layers.Dense(1, activation="sigmoid"),
        ]
    )
    model.summary()

    metrics = [
        keras.metrics.FalseNegatives(name="fn"),
        keras.metrics.FalsePositives(name="fp"),
        keras.metrics.TrueNegatives(name="tn"),
        keras.metrics.TruePositives(name="tp"),
        keras.metrics.Precision(name="precision"),
        keras.metrics.Recall(name="recall"),
    ]
    model.compile(
        optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=metrics
    )
    callbacks = [keras.callbacks.ModelCheckpoint("fraud_model_at_epoch_{epoch}.keras")]
    class_weight = {0: weight_for_0, 1: weight_for_1}
    history = model.fit(
        train_features,
        train_targets,
        batch_size=256,  # changed: 256 instead of 2048 (2400 rows, not 227845)
        epochs=5,  # changed: 5 epochs instead of 30
        verbose=2,
        callbacks=callbacks,
        validation_data=(val_features, val_targets),
        class_weight=class_weight,
    )
    assert os.path.exists("fraud_model_at_epoch_5.keras")
    last = {k: v[-1] for k, v in history.history.items()}
    assert last['val_fn'] + last['val_tp'] == val_targets.sum()
    assert last['val_tn'] + last['val_fp'] == len(val_targets) - val_targets.sum()
    assert last['val_recall'] > 0.5  # changed: added; the frauds are easy to separate
