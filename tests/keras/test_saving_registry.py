"""keras.saving: the registry of custom objects, scopes, serialize/deserialize_keras_object,
layers.serialize/deserialize, and custom layers and models through ``.keras`` files (the
workflows of Keras's guide "Save, serialize, and export models")."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import keras
from chainlet.keras import saving


@pytest.fixture(autouse=True)
def _clean_registry():
    saved = dict(saving.get_custom_objects())
    yield
    saving.get_custom_objects().clear()
    saving.get_custom_objects().update(saved)


def _scale_layer_class():
    class Scale(keras.layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), 'factor': self.factor}
    return Scale


def _square(x):
    return x ** 2


def _model(scale_cls, activation):
    inputs = keras.Input(shape=(4,))
    mid = scale_cls(0.5)(inputs)
    outputs = keras.layers.Dense(1, activation=activation)(mid)
    model = keras.Model(inputs, outputs)
    model.compile(optimizer='rmsprop', loss='mean_squared_error')
    rng = np.random.default_rng(0)
    model.fit(rng.random((8, 4)), rng.random((8, 1)), verbose=0)
    return model


X = np.random.default_rng(1).random((5, 4)).astype(np.float32)

# ------------------------------------------------------------------ registry


def test_register_names_and_lookup():
    Scale = _scale_layer_class()
    assert saving.register_keras_serializable(package='Pkg')(Scale) is Scale
    assert saving.get_registered_name(Scale) == 'Pkg>Scale'
    assert saving.get_registered_object('Pkg>Scale') is Scale
    fn = saving.register_keras_serializable(name='sq')(_square)
    assert saving.get_registered_name(fn) == 'Custom>sq'
    assert saving.get_custom_objects()['Custom>sq'] is _square
    # unregistered objects: their __name__
    assert saving.get_registered_name(np.sum) == 'sum'
    assert saving.get_registered_object('nothing') is None
    assert saving.get_registered_object('x', custom_objects={'x': 1}) == 1
    assert saving.get_registered_object('x', module_objects={'x': 2}) == 2
    saving.get_custom_objects().clear()
    assert saving.get_registered_object('Pkg>Scale') is None
    assert saving.get_registered_name(Scale) == 'Scale'


def test_register_errors():
    with pytest.raises(ValueError, match='package'):
        saving.register_keras_serializable(package='a>b')
    with pytest.raises(ValueError, match='get_config'):
        saving.register_keras_serializable()(type('NoConfig', (), {}))
    saving.register_keras_serializable(name='taken')(_square)
    with pytest.raises(ValueError, match='already registered'):
        saving.register_keras_serializable(name='taken')(np.sum)


def test_custom_object_scope_nests_restores_and_is_thread_local():
    def cube(x):
        return x ** 3
    assert saving.custom_object_scope is saving.CustomObjectScope
    with saving.custom_object_scope({'cube': cube}):
        with saving.CustomObjectScope({'square': _square}, None):
            assert saving.get_registered_object('cube') is cube
            assert saving.get_registered_object('square') is _square
            seen = []
            t = threading.Thread(target=lambda: seen.append(saving.get_registered_object('cube')))
            t.start()
            t.join()
            assert seen == [None]
        assert saving.get_registered_object('square') is None
        # scope objects win over custom_objects passed to the call (Keras's order)
        assert saving.get_registered_object('cube', custom_objects={'cube': 1}) is cube
    assert saving.get_registered_object('cube') is None
    with pytest.raises(TypeError, match='CustomObjectScope'):
        saving.CustomObjectScope(['cube'])

# ------------------------------------------------------ serialize/deserialize


def test_serialize_keras_object_round_trips_values():
    reg = keras.regularizers.L1(0.005)
    config = saving.serialize_keras_object(reg)
    assert config == {'module': 'chainlet.keras.regularizers', 'class_name': 'L1',
                      'config': {'l1': 0.005}, 'registered_name': None}
    new = saving.deserialize_keras_object(config)
    assert type(new) is keras.regularizers.L1 and new.l1 == 0.005
    init = saving.deserialize_keras_object(
        saving.serialize_keras_object(keras.initializers.Constant(3.0)))
    assert isinstance(init, keras.initializers.Constant)
    value = {'t': (1, 2.5, None), 'a': np.arange(3, dtype=np.int16), 'b': b'xy',
             's': slice(1, 5, 2), 'n': np.float32(1.5), 'l': [1, 'a']}
    back = saving.deserialize_keras_object(saving.serialize_keras_object(value))
    assert back['t'] == (1, 2.5, None)
    assert back['a'].dtype == np.int16 and back['a'].tolist() == [0, 1, 2]
    assert back['b'] == b'xy' and back['s'] == slice(1, 5, 2)
    assert back['n'] == 1.5 and back['l'] == [1, 'a']


def test_serialize_functions():
    config = saving.serialize_keras_object(keras.activations.relu)
    assert config['class_name'] == 'function' and config['config'] == 'relu'
    assert saving.deserialize_keras_object(config) is keras.activations.relu
    saving.register_keras_serializable(package='my_package', name='custom_fn')(_square)
    config = saving.serialize_keras_object(_square)
    assert config['config'] == 'my_package>custom_fn'
    assert saving.deserialize_keras_object(config) is _square
    # a plain string names a registered object
    assert saving.deserialize_keras_object('my_package>custom_fn') is _square
    assert saving.deserialize_keras_object('just text') == 'just text'
    with pytest.raises(ValueError, match='lambda'):
        saving.serialize_keras_object(lambda x: x)
    with pytest.raises(ValueError, match="unknown function 'nope'"):
        saving.deserialize_keras_object({'class_name': 'function', 'config': 'nope'})


def test_unknown_and_unserializable_objects():
    with pytest.raises(ValueError, match="Unknown object: 'Mystery'"):
        saving.deserialize_keras_object({'class_name': 'Mystery', 'config': {}})
    with pytest.raises(TypeError, match='get_config'):
        saving.serialize_keras_object(object())
    # a config's module outside chainlet.keras is never imported
    with pytest.raises(ValueError, match='Unknown object'):
        saving.deserialize_keras_object({'module': 'os', 'class_name': 'system', 'config': {}})


def test_layers_serialize_deserialize_with_nested_layers_in_config():
    @saving.register_keras_serializable(package='MyLayers', name='KernelMult')
    class MyDense(keras.layers.Layer):
        def __init__(self, units, *, kernel_regularizer=None, kernel_initializer=None,
                     nested_model=None, **kwargs):
            super().__init__(**kwargs)
            self.hidden_units = units
            self.kernel_regularizer = kernel_regularizer
            self.kernel_initializer = kernel_initializer
            self.nested_model = nested_model

        def get_config(self):
            return {**super().get_config(), 'units': self.hidden_units,
                    'kernel_regularizer': self.kernel_regularizer,
                    'kernel_initializer': self.kernel_initializer,
                    'nested_model': self.nested_model}

    inner = MyDense(16, kernel_regularizer=keras.regularizers.L1L2(l1=1e-5, l2=1e-4),
                    kernel_initializer='ones')
    outer = MyDense(64, nested_model=inner)
    config = keras.layers.serialize(outer)
    assert config['class_name'] == 'MyDense'
    assert config['registered_name'] == 'MyLayers>KernelMult'
    nested = config['config']['nested_model']
    assert nested['registered_name'] == 'MyLayers>KernelMult'
    assert nested['config']['kernel_regularizer']['class_name'] == 'L1L2'
    new = keras.layers.deserialize(config)
    assert type(new) is MyDense and new.hidden_units == 64 and new.name == outer.name
    assert keras.layers.deserialize(keras.layers.serialize(keras.layers.Dense(3))).units == 3
    # an unregistered class needs custom_objects
    Scale = _scale_layer_class()
    config = keras.layers.serialize(Scale(2.0))
    with pytest.raises(ValueError, match='Unknown layer: Scale'):
        keras.layers.deserialize(config)
    assert keras.layers.deserialize(config, custom_objects={'Scale': Scale}).factor == 2.0

# ------------------------------------------------------------ whole models


def test_registered_custom_layer_and_activation_load_without_custom_objects(tmp_path):
    Scale = saving.register_keras_serializable(package='MyLayers')(_scale_layer_class())
    fn = saving.register_keras_serializable(package='my_package', name='custom_fn')(_square)
    model = _model(Scale, fn)
    path = str(tmp_path / 'custom_model.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert loaded.layers[2].activation is _square
    loaded.fit(X, np.zeros((5, 1)), verbose=0)  # compiled, trains on


def test_unregistered_custom_objects_by_argument_or_scope(tmp_path):
    Scale = _scale_layer_class()
    model = _model(Scale, _square)
    path = str(tmp_path / 'm.keras')
    keras.saving.save_model(model, path)
    with pytest.raises(ValueError, match='Unknown layer: Scale'):
        keras.saving.load_model(path)
    custom = {'Scale': Scale, '_square': _square}
    loaded = keras.models.load_model(path, custom_objects=custom)
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    with keras.saving.custom_object_scope(custom):
        loaded = keras.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    with keras.saving.custom_object_scope(custom):
        clone = keras.Model.from_config(model.get_config())
    assert clone.predict(X, verbose=0).shape == (5, 1)
    with pytest.raises(FileExistsError):
        keras.models.save_model(model, path, overwrite=False)


def test_subclassed_model_round_trip_uses_build_config(tmp_path):
    @saving.register_keras_serializable(package='Models')
    class MLP(keras.Model):
        def __init__(self, output_dim, name=None):
            super().__init__(name=name)
            self.output_dim = output_dim
            self.hidden = keras.layers.Dense(8, activation='relu')
            self.out = keras.layers.Dense(output_dim)

        def call(self, inputs):
            return self.out(self.hidden(inputs))

        def get_config(self):
            return {'output_dim': self.output_dim, 'name': self.name}

    model = MLP(3)
    model(np.ones((1, 4), np.float32))
    assert model.get_build_config() == {'input_shape': (1, 4)}
    path = str(tmp_path / 'sub.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert type(loaded) is MLP
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))


def test_layer_holding_layers_in_its_config_round_trips(tmp_path):
    @saving.register_keras_serializable(package='ComplexModels')
    class Pair(keras.layers.Layer):
        def __init__(self, first_layer, second_layer=None, **kwargs):
            super().__init__(**kwargs)
            self.first_layer = first_layer
            self.second_layer = second_layer if second_layer is not None else \
                keras.layers.Dense(8)

        def get_config(self):
            return {**super().get_config(), 'first_layer': self.first_layer,
                    'second_layer': self.second_layer}

        @classmethod
        def from_config(cls, config):
            config['first_layer'] = keras.layers.deserialize(config['first_layer'])
            config['second_layer'] = keras.layers.deserialize(config['second_layer'])
            return cls(**config)

        def call(self, inputs):
            return self.first_layer(self.second_layer(inputs))

    inputs = keras.Input((4,))
    model = keras.Model(inputs, Pair(keras.layers.Dense(2, activation='tanh'))(inputs))
    path = str(tmp_path / 'pair.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    assert len(loaded.weights) == 4


def test_registered_loss_function_is_restored_by_compile(tmp_path):
    @saving.register_keras_serializable(package='Losses')
    def doubled_mse(y_true, y_pred):
        return 2.0 * F.mean((y_pred - y_true) ** 2, axis=-1)

    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Dense(1)(inputs))
    model.compile('sgd', loss=doubled_mse)
    y = np.ones((5, 1), np.float32)
    path = str(tmp_path / 'loss.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.evaluate(X, y, verbose=0) == pytest.approx(model.evaluate(X, y, verbose=0))


def test_build_config_of_a_plain_layer():
    layer = keras.layers.Dense(2)
    assert layer.get_build_config() is None
    layer(np.ones((3, 5), np.float32))
    assert layer.get_build_config() == {'input_shape': (3, 5)}
    fresh = keras.layers.Dense(2)
    fresh.build_from_config({'input_shape': [None, 5]})
    assert fresh.built and fresh.weights[0].shape == (5, 2)

# ------------------------------------------- the "customizing saving" guide's hooks


def test_auto_config_for_custom_classes_without_get_config(tmp_path):
    @saving.register_keras_serializable(package='Auto')
    class Stack(keras.Model):
        def __init__(self, hidden_units):
            super().__init__()
            self.hidden_units = hidden_units
            self.dense_layers = [keras.layers.Dense(u) for u in hidden_units]

        def call(self, inputs):
            for layer in self.dense_layers:
                inputs = layer(inputs)
            return inputs

    @saving.register_keras_serializable(package='Auto')
    class NoArgs(keras.Model):
        def __init__(self):
            super().__init__()
            self.out = keras.layers.Dense(2)

        def call(self, inputs):
            return self.out(inputs)

    model = Stack([5, 3])
    model(X)
    assert model.get_config() == {'hidden_units': [5, 3]}  # base keys __init__ cannot take
    path = str(tmp_path / 'stack.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.hidden_units == [5, 3]
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    model = NoArgs()
    model(X)
    assert model.get_config() == {}
    model.save(path)
    np.testing.assert_array_equal(keras.saving.load_model(path).predict(X, verbose=0),
                                  model.predict(X, verbose=0))
    # arguments that are not plain data: no auto config, the base keys only
    Scale = _scale_layer_class()

    class Holder(keras.layers.Layer):
        def __init__(self, inner, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner
    assert 'inner' not in Holder(Scale(1.0), name='h').get_config()
    assert Holder(Scale(1.0), name='h').get_config()['name'] == 'h'


def test_save_and_load_own_variables_and_assets(tmp_path):
    import os

    @saving.register_keras_serializable(package='Hooks')
    class WithExtra(keras.layers.Dense):
        def __init__(self, units, vocab=None, **kwargs):
            super().__init__(units, **kwargs)
            self.extra = np.arange(3, dtype=np.float32)
            self.vocab = vocab

        def save_own_variables(self, store):
            super().save_own_variables(store)
            store['extra'] = self.extra * 2

        def load_own_variables(self, store):
            self.extra = np.asarray(store['extra'])
            for i, w in enumerate(self.weights):
                w.array[...] = store[str(i)]

        def save_assets(self, folder):
            with open(os.path.join(folder, 'vocab.txt'), 'w') as f:
                f.write(self.vocab)

        def load_assets(self, folder):
            with open(os.path.join(folder, 'vocab.txt')) as f:
                self.vocab = f.read().upper()

    model = keras.Sequential([keras.Input((4,)), WithExtra(2, vocab='a b'), WithExtra(1)])
    model.layers[1].vocab = 'c'
    path = str(tmp_path / 'hooks.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    first, second = loaded.layers
    assert first.extra.tolist() == [0, 2, 4] and first.vocab == 'A B' and second.vocab == 'C'
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    npz = str(tmp_path / 'hooks.npz')  # own variables travel in .npz files too
    model.save(npz)
    assert keras.saving.load_model(npz).layers[0].extra.tolist() == [0, 2, 4]


def test_custom_build_config_and_compile_config(tmp_path):
    @saving.register_keras_serializable(package='Hooks')
    class CustomBuild(keras.layers.Layer):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def build(self, input_shape, layer_init):
            super().build(input_shape)
            self.w = self.add_weight(shape=(input_shape[-1], self.units),
                                     initializer=layer_init)
            self.layer_init = layer_init

        def call(self, inputs):
            return F.matmul(inputs, self.w)

        def get_config(self):
            return {**super().get_config(), 'units': self.units}

        def get_build_config(self):
            return {**super().get_build_config(), 'layer_init': self.layer_init}

        def build_from_config(self, config):
            self.build(config['input_shape'], config['layer_init'])

    @saving.register_keras_serializable(package='Hooks')
    def half_mse(y_true, y_pred):
        return 0.5 * F.mean((y_pred - y_true) ** 2, axis=-1)

    @saving.register_keras_serializable(package='Hooks')
    class Compiled(keras.Model):
        def __init__(self):
            super().__init__()
            self.body = keras.layers.Dense(1)

        def call(self, inputs):
            return self.body(inputs)

        def compile(self, optimizer, loss_fn):
            super().compile(optimizer=optimizer, loss=loss_fn)
            self.loss_fn = loss_fn

        def get_compile_config(self):
            return {'optimizer': 'sgd', 'loss_fn': self.loss_fn}

        def compile_from_config(self, config):
            self.compile(saving.deserialize_keras_object(config['optimizer']),
                         saving.deserialize_keras_object(config['loss_fn']))

    layer = CustomBuild()
    layer.build((None, 4), 'ones')
    model = keras.Sequential([layer, keras.layers.Dense(1)])
    model(X)
    path = str(tmp_path / 'build.keras')
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.layers[0].layer_init == 'ones' and loaded.built
    np.testing.assert_allclose(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    model = Compiled()
    model.compile('sgd', half_mse)
    model.fit(X, np.ones((5, 1)), verbose=0)
    model.save(path)
    loaded = keras.saving.load_model(path)
    assert loaded.loss_fn is half_mse
    loaded.fit(X, np.ones((5, 1)), verbose=0)


def test_saving_save_and_load_weights(tmp_path):
    inputs = keras.Input((4,))
    model = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    path = str(tmp_path / 'm.weights.npz')
    saving.save_weights(model, path)
    other = keras.Model(inputs, keras.layers.Dense(2)(inputs))
    saving.load_weights(other, path)
    np.testing.assert_array_equal(other.predict(X, verbose=0), model.predict(X, verbose=0))
    with pytest.raises(FileExistsError):
        saving.save_weights(model, path, overwrite=False)
    with pytest.raises(ValueError, match='skip_mismatch'):
        saving.load_weights(other, path, skip_mismatch=True)
