"""The Keras facade on the GPU: a model moved with ``to_device`` trains, evaluates and predicts
from NumPy data, and matches the same run on the CPU.

Every test is marked ``gpu``; tests/conftest.py skips them (with the reason) when CuPy or a
CUDA device is missing.
"""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras import layers
from chainlet.testing import assert_allclose

pytestmark = pytest.mark.gpu


@pytest.fixture
def cupy():
    import cupy
    return cupy


def _model():
    keras.utils.set_random_seed(0)
    inputs = keras.Input((8,))
    h = layers.Dense(16, activation='relu')(inputs)
    h = layers.BatchNormalization()(h)
    outputs = layers.Dense(3)(h)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    return model


def test_fit_evaluate_predict_match_cpu(cupy):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 8)).astype(np.float32)
    y = rng.integers(0, 3, 48).astype(np.int32)
    results = []
    for device in ('@numpy', '@cupy:0'):
        model = _model()
        model.to_device(device)
        assert model.device == device
        history = model.fit(x, y, epochs=2, batch_size=16, shuffle=False, verbose=0)
        results.append((history.history['loss'], model.evaluate(x, y, verbose=0),
                        model.predict(x, verbose=0), model.get_weights()))
    (loss_c, eval_c, pred_c, w_c), (loss_g, eval_g, pred_g, w_g) = results
    np.testing.assert_allclose(loss_g, loss_c, rtol=1e-4)
    np.testing.assert_allclose(eval_g, eval_c, rtol=1e-4)
    assert isinstance(pred_g, np.ndarray)  # predict returns host arrays, as Keras does
    assert_allclose(pred_g, pred_c, atol=1e-4, rtol=1e-4)
    for a, b in zip(w_g, w_c):
        assert isinstance(a, np.ndarray)
        assert_allclose(a, b, atol=1e-5, rtol=1e-4)
