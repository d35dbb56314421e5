"""keras.ops and keras.random on CuPy: host arrays join GPU tensors, random ops keep the device,
and a model with ops trains after ``to_device`` (the op table runs on CuPy in
test_ops_table.py).

Marked ``gpu``: tests/conftest.py skips them without CuPy and a device (they run on the CPU
stand-in with ``CHAINLET_EMULATE_CUPY=1``).
"""
import numpy as np
import pytest

import chainlet
from chainlet import keras
from chainlet.keras import ops

pytestmark = pytest.mark.gpu


@pytest.fixture
def cupy():
    import cupy
    return cupy


def test_host_arrays_join_gpu_tensors(cupy):
    x = chainlet.Variable(cupy.ones((2, 3), 'f'))
    y = ops.add(x, np.arange(3, dtype='f'))
    assert isinstance(y.array, cupy.ndarray)
    np.testing.assert_allclose(cupy.asnumpy(y.array), 1 + np.arange(3)[None].repeat(2, 0))


def test_random_on_gpu_inputs(cupy):
    x = chainlet.Variable(cupy.ones((4, 5), 'f'))
    y = keras.random.dropout(x, 0.5, seed=0)
    assert isinstance(y.array, cupy.ndarray)
    assert isinstance(keras.random.shuffle(cupy.arange(5), seed=0), cupy.ndarray)


def test_model_with_ops_trains_on_gpu(cupy):
    keras.utils.set_random_seed(0)
    inputs = keras.Input(shape=(4,))
    hidden = ops.relu(keras.layers.Dense(8)(inputs))
    outputs = ops.sum(keras.layers.Dense(2)(hidden), axis=-1)
    model = keras.Model(inputs, outputs)
    model.to_device('@cupy:0')
    model.compile(keras.optimizers.Adam(0.01), 'mse')
    x = np.random.RandomState(0).uniform(-1, 1, (64, 4)).astype('f')
    history = model.fit(x, x.sum(axis=1), epochs=10, verbose=0)
    assert history.history['loss'][-1] < history.history['loss'][0]
    assert isinstance(model.predict(x, verbose=0), np.ndarray)
