"""Keras failure behaviour (issue 13): losses averaged over samples, labels out of range
rejected, no reference cycles per call."""
from __future__ import annotations

import gc

import numpy as np
from chainlet import keras


def _classifier(n_in: int = 4, n_class: int = 3) -> keras.Model:
    keras.utils.set_random_seed(0)
    return keras.Sequential([keras.Input(shape=(n_in,)), keras.layers.Dense(8, activation='tanh'),
                             keras.layers.Dense(n_class)])


def _data(n: int = 300, n_in: int = 4, n_class: int = 3) -> tuple:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, n_in)).astype(np.float32)
    y = rng.integers(0, n_class, size=n)
    w = rng.uniform(0.1, 3.0, size=n).astype(np.float32)
    return x, y, w


# --------------------------------------------------------- item 8: no cycle per call

def _garbage_per_call(call, repeats: int = 5) -> float:
    call()   # warm-up: lazy builds, caches
    call()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        for _ in range(repeats):
            call()
        return gc.collect() / repeats
    finally:
        if was_enabled:
            gc.enable()


def test_training_calls_leave_no_reference_cycles():
    model = _classifier()
    model.compile('adam', keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    x, y, _ = _data(n=64)
    assert _garbage_per_call(lambda: model.train_on_batch(x, y)) == 0
    assert _garbage_per_call(lambda: model.test_on_batch(x, y)) == 0
    assert _garbage_per_call(lambda: model.fit(x, y, batch_size=16, verbose=0,
                                               validation_data=(x, y))) == 0
    assert _garbage_per_call(lambda: model.evaluate(x, y, verbose=0)) == 0
    assert _garbage_per_call(lambda: model.predict(x, verbose=0)) == 0


def test_functional_model_with_dict_inputs_leaves_no_reference_cycles():
    keras.utils.set_random_seed(0)
    a = keras.Input(shape=(2,), name='a')
    b = keras.Input(shape=(3,), name='b')
    out = keras.layers.Dense(1)(keras.layers.Concatenate()([a, b]))
    model = keras.Model({'a': a, 'b': b}, out)
    model.compile('sgd', 'mse')
    x = {'a': np.ones((8, 2), np.float32), 'b': np.ones((8, 3), np.float32)}
    y = np.zeros((8, 1), np.float32)
    assert _garbage_per_call(lambda: model.train_on_batch(x, y)) == 0
    assert _garbage_per_call(lambda: model.fit(x, y, batch_size=4, verbose=0)) == 0
