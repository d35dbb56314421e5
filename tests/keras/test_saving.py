"""Configs (functional, Sequential, nested, shared), JSON, weights files and whole-model files,
summary and plot_model."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from chainlet import keras


def _nested_shared_model() -> keras.Model:
    keras.backend.clear_session()
    inner_in = keras.Input(shape=(4,), name='inner_in')
    inner = keras.Model(inner_in, keras.layers.Dense(4, activation='tanh', name='inner_dense')(
        inner_in), name='inner')
    seq = keras.Sequential([keras.layers.Dense(3, activation='relu'), keras.layers.Dense(2)],
                           name='seq')
    a = keras.Input(shape=(4,), name='a')
    b = keras.Input(shape=(4,), name='b')
    shared = keras.layers.Dense(4, name='shared')
    ha, hb = inner(shared(a)), inner(shared(b))
    out1 = seq(keras.layers.Add(name='add')([ha, hb]))
    out2 = keras.layers.Dense(1, name='out2')(hb)
    return keras.Model([a, b], [out1, out2], name='outer')


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.normal(size=(5, 4)).astype(np.float32) for _ in range(2)]


def _assert_same_outputs(m1, m2, x):
    for p1, p2 in zip(m1.predict(x, verbose=0), m2.predict(x, verbose=0)):
        np.testing.assert_array_equal(p1, p2)


def test_functional_config_format_and_round_trip():
    model = _nested_shared_model()
    config = model.get_config()
    assert set(config) >= {'name', 'layers', 'input_layers', 'output_layers'}
    names = [layer['name'] for layer in config['layers']]
    assert names == [layer.name for layer in model.layers]
    shared = next(layer for layer in config['layers'] if layer['name'] == 'shared')
    assert shared['class_name'] == 'Dense' and len(shared['inbound_nodes']) == 2
    assert config['input_layers'] == [['a', 0, 0], ['b', 0, 0]]
    json.dumps(config)
    clone = keras.Model.from_config(config)
    assert [layer.name for layer in clone.layers] == names
    assert len(clone.get_layer('inner')._inbound_nodes) == 2
    clone.set_weights(model.get_weights())
    _assert_same_outputs(model, clone, _inputs())
    assert clone.get_config() == config


def test_sequential_config_and_json_round_trip():
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(2,)), keras.layers.Dense(1)])
    clone = keras.models.model_from_json(model.to_json())
    assert isinstance(clone, keras.Sequential)
    clone.set_weights(model.get_weights())
    x = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(model.predict(x, verbose=0), clone.predict(x, verbose=0))
    lazy = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(1)])
    lazy.predict(x, verbose=0)              # built from data
    again = keras.models.model_from_json(lazy.to_json())
    again.set_weights(lazy.get_weights())
    np.testing.assert_array_equal(lazy.predict(x, verbose=0), again.predict(x, verbose=0))


@pytest.mark.parametrize('ext', ['.keras', '.npz', '.h5'])
def test_save_load_predict_identical(tmp_path, ext):
    if ext == '.h5':
        pytest.importorskip('h5py')
    model = _nested_shared_model()
    model.compile('adam', ['mse', 'mae'], metrics=[['mae'], []])
    x = _inputs()
    path = str(tmp_path / f'model{ext}')
    model.save(path)
    loaded = keras.models.load_model(path)
    _assert_same_outputs(model, loaded, x)
    assert loaded.compiled and type(loaded.optimizer).__name__ == 'Adam'
    loaded.fit(x, [np.zeros((5, 2)), np.zeros((5, 1))], verbose=0)


@pytest.mark.parametrize('ext', ['.weights.npz', '.weights.h5'])
def test_save_weights_load_weights(tmp_path, ext):
    if ext.endswith('h5'):
        pytest.importorskip('h5py')
    model = _nested_shared_model()
    path = str(tmp_path / f'w{ext}')
    model.save_weights(path)
    other = _nested_shared_model()        # fresh weights, same structure
    other.load_weights(path)
    _assert_same_outputs(model, other, _inputs())
    small = keras.Sequential([keras.Input(shape=(4,)), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match='does not match'):
        small.load_weights(path)


def test_weights_in_layer_order_and_set_weights_names_layer():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, name='d1'),
                              keras.layers.BatchNormalization(name='bn'),
                              keras.layers.Dense(2, name='d2')])
    shapes = [w.shape for w in model.get_weights()]
    assert shapes == [(3, 4), (4,), (4,), (4,), (4,), (4,), (4, 2), (2,)]
    weights = model.get_weights()
    weights[6] = np.zeros((5, 2))
    with pytest.raises(ValueError, match='Layer "d2"'):
        model.set_weights(weights)
    assert model.count_params() == 16 + 16 + 10


def test_unknown_layer_needs_custom_objects(tmp_path):
    class Scale(keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, inputs):
            return inputs * self.factor

        def get_config(self):
            return {**super().get_config(), 'factor': self.factor}
    inputs = keras.Input(shape=(2,))
    model = keras.Model(inputs, Scale(3.0)(keras.layers.Dense(2)(inputs)))
    path = str(tmp_path / 'm.keras')
    model.save(path)
    with pytest.raises(ValueError, match='Unknown layer: Scale; pass it in custom_objects'):
        keras.models.load_model(path)
    loaded = keras.models.load_model(path, custom_objects={'Scale': Scale})
    x = np.ones((1, 2), np.float32)
    np.testing.assert_array_equal(model.predict(x, verbose=0), loaded.predict(x, verbose=0))


def test_saves_are_atomic(tmp_path):
    model = keras.Sequential([keras.Input(shape=(2,)), keras.layers.Dense(1)])
    path = tmp_path / 'w.weights.npz'
    model.save_weights(str(path))
    before = path.read_bytes()
    from chainlet.keras.engine import serialization

    def failing(f):
        f.write(b'partial')
        raise OSError('disk full')
    with pytest.raises(OSError, match='disk full'):
        serialization.atomic_write(str(path), failing)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ['w.weights.npz']


def test_summary_and_unbuilt_model():
    model = _nested_shared_model()
    lines = []
    model.summary(print_fn=lines.append)
    text = '\n'.join(lines)
    assert 'Model: "outer"' in text and 'Connected to' in text
    assert 'shared (Dense)' in text and 'multiple' in text
    total = model.count_params()
    assert f'Total params: {total:,}' in text and 'Non-trainable params: 0' in text
    seq = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match='not been built'):
        seq.summary()
    seq.build((None, 3))
    lines = []
    seq.summary(print_fn=lines.append)
    assert any('(None, 2)' in line for line in lines)


def test_plot_model_writes_dot(tmp_path):
    model = _nested_shared_model()
    path = tmp_path / 'model.dot'
    dot = keras.utils.plot_model(model, to_file=str(path), show_shapes=True)
    assert path.read_text() == dot and dot.startswith('digraph')
    assert dot.count('->') == 6   # layer to layer, each connection once


def test_clone_model_and_clear_session():
    model = _nested_shared_model()
    clone = keras.models.clone_model(model)
    assert [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
    keras.backend.clear_session()
    assert keras.layers.Dense(1).name == 'dense'


def test_to_categorical_and_seed():
    y = keras.utils.to_categorical(np.array([[1], [0]]), 3)
    np.testing.assert_array_equal(y, [[0, 1, 0], [1, 0, 0]])
    keras.utils.set_random_seed(5)
    a = np.random.rand()
    keras.utils.set_random_seed(5)
    assert np.random.rand() == a
