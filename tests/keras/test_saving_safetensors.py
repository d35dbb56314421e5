"""Keras weights and whole models in the ``.safetensors`` format (the ``safetensors`` extra)."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from chainlet import keras
from chainlet.serializers import CorruptFileError


def _model(seed: int) -> keras.Model:
    keras.utils.set_random_seed(seed)
    inputs = keras.Input(shape=(4,), name='x')
    h = keras.layers.Dense(5, activation='relu', name='hidden')(inputs)
    h = keras.layers.BatchNormalization(name='bn')(h)
    return keras.Model(inputs, keras.layers.Dense(2, name='out')(h), name='net')


X = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)


def test_missing_package_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'safetensors', None)
    with pytest.raises(ImportError, match=r'pip install "chainlet-dl\[safetensors\]"'):
        _model(0).save_weights(str(tmp_path / 'w.safetensors'))
    assert not os.listdir(tmp_path)


try:
    import safetensors.numpy as st
except ImportError:  # CI runs without the extra: only the test above runs there
    st = None
needs_safetensors = pytest.mark.skipif(st is None, reason='safetensors is not installed')


@needs_safetensors
def test_save_weights_load_weights(tmp_path):
    model = _model(0)
    path = str(tmp_path / 'w.safetensors')
    model.save_weights(path)
    other = _model(1)
    assert not np.allclose(model.predict(X, verbose=0), other.predict(X, verbose=0))
    other.load_weights(path)
    np.testing.assert_array_equal(model.predict(X, verbose=0), other.predict(X, verbose=0))
    # the safetensors package reads the file: one tensor per weight, under the stable keys
    loaded = st.load_file(path)
    assert sorted(loaded) == sorted(key for key, _, _ in model._weight_entries())
    np.testing.assert_array_equal(loaded['dense/vars/0'], model.get_weights()[0])
    small = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match='does not match'):
        small.load_weights(path)
    assert os.listdir(tmp_path) == ['w.safetensors']


@needs_safetensors
def test_weights_written_by_the_safetensors_package_load(tmp_path):
    model = _model(0)
    path = str(tmp_path / 'w.safetensors')
    model.save_weights(path)
    arrays = {key: value * 2 for key, value in st.load_file(path).items()}
    st.save_file(arrays, path)  # rewritten by another tool: no chainlet metadata
    model.load_weights(path)
    np.testing.assert_array_equal(model.get_layer('out').get_weights()[0],
                                  arrays['dense_1/vars/0'])


@needs_safetensors
def test_whole_model_round_trip_with_optimizer(tmp_path):
    model = _model(0)
    model.compile('adam', 'mse')
    model.fit(X, np.zeros((6, 2)), epochs=2, verbose=0)
    path = str(tmp_path / 'model.safetensors')
    model.save(path)
    loaded = keras.models.load_model(path)
    np.testing.assert_array_equal(model.predict(X, verbose=0), loaded.predict(X, verbose=0))
    assert loaded.compiled and type(loaded.optimizer).__name__ == 'Adam'
    assert int(loaded.optimizer.iterations) == int(model.optimizer.iterations)
    with st.safe_open(path, framework='numpy') as f:
        assert '__config__' in f.metadata()
    loaded.fit(X, np.zeros((6, 2)), verbose=0)
    weights_only = str(tmp_path / 'w.safetensors')
    model.save_weights(weights_only)
    with pytest.raises(ValueError, match='holds weights only'):
        keras.models.load_model(weights_only)


@needs_safetensors
def test_corrupt_file_names_the_path(tmp_path):
    model = _model(0)
    path = tmp_path / 'w.safetensors'
    model.save_weights(str(path))
    good = path.read_bytes()
    flipped = bytearray(good)
    flipped[-1] ^= 0x10
    for bad in (b'', good[:40], bytes(flipped)):
        path.write_bytes(bad)
        with pytest.raises(CorruptFileError, match=r"load_weights: cannot read '.*w\.safet"):
            model.load_weights(str(path))
