"""``keras.Model(inputs, outputs)`` returns a ``Functional`` (as Keras 3): graph behaviour
lives there, ``Model`` is the subclassing API, and both are ``keras.Model``."""
from __future__ import annotations

import numpy as np
import pytest

from chainlet import keras
from chainlet.keras.engine.functional_model import Functional


def _graph():
    inputs = keras.Input((3,), name='x')
    return inputs, keras.layers.Dense(2, name='d')(inputs)


def test_model_of_tensors_is_functional_and_a_model():
    inputs, outputs = _graph()
    for model in (keras.Model(inputs, outputs), keras.Model(inputs=inputs, outputs=outputs)):
        assert type(model) is Functional
        assert isinstance(model, keras.Model)
        assert model.input is inputs and model.output is outputs
        assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
        assert [layer.name for layer in model.input_layers] == ['x']
        assert model.predict(np.ones((4, 3), np.float32), verbose=0).shape == (4, 2)


def test_subclassed_model_is_not_functional():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    net = Net()
    assert not isinstance(net, Functional)
    assert net(np.ones((1, 3), np.float32)).shape == (1, 2)
    with pytest.raises(AttributeError, match='is not a functional model .* no input_shape'):
        net.input_shape


def test_subclass_passing_inputs_and_outputs_becomes_functional():
    class Wrapped(keras.Model):
        def __init__(self, scale):
            inputs, outputs = _graph()
            super().__init__(inputs, outputs, name='wrapped')
            self.scale = scale

        def describe(self):
            return f'{self.name} x{self.scale}'

    model = Wrapped(3)
    assert isinstance(model, Wrapped) and isinstance(model, Functional)
    assert type(model).__name__ == 'Wrapped'
    assert model.describe() == 'wrapped x3'
    assert model(np.ones((2, 3), np.float32)).shape == (2, 2)


def test_functional_config_round_trip_and_argument_errors():
    model = keras.Model(*_graph())
    clone = keras.Model.from_config(model.get_config())
    assert type(clone) is Functional
    assert [layer.name for layer in clone.layers] == ['x', 'd']
    inputs, _ = _graph()
    with pytest.raises(ValueError, match='needs both inputs= and outputs='):
        keras.Model(inputs=inputs)
    with pytest.raises(TypeError, match='at most 2 positional arguments'):
        keras.Model(inputs, inputs, inputs)


def test_sequential_answers_as_functional_once_built():
    model = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(AttributeError, match='no input_shape'):
        model.input_shape
    model.build((None, 3))
    assert model.input_shape == (None, 3) and model.output_shape == (None, 2)
    assert not isinstance(model, Functional)


def test_functional_subclass_is_saved_under_its_own_registered_class():
    @keras.saving.register_keras_serializable(package='i16test')
    class Registered(keras.Model):
        def __init__(self, **kwargs):
            inputs, outputs = _graph()
            super().__init__(inputs, outputs, **kwargs)

    config = keras.saving.serialize_keras_object(Registered(name='reg'))
    assert config['class_name'] == 'Registered'
    assert config['registered_name'] == 'i16test>Registered'
