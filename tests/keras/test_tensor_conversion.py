"""Tensors convert to NumPy and Python scalars as Keras's eager tensors do (issue 31); symbolic
KerasTensors refuse with a clear error."""
import operator

import numpy as np
import pytest

import chainlet
from chainlet import keras


def test_array_protocol_gives_the_data():
    v = chainlet.Variable(np.arange(3, dtype=np.float32))
    a = np.array(v)
    assert a.dtype == np.float32 and a.tolist() == [0.0, 1.0, 2.0]
    assert np.asarray(v) is v.array
    assert np.asarray(v, dtype=np.float64).dtype == np.float64
    assert np.array(v, copy=True) is not v.array
    # a list of tensors stacks like a list of arrays (was an object array)
    assert np.array([v, v]).shape == (2, 3)


def test_scalars_in_a_data_pipeline():
    y = keras.ops.argmax(np.array([[0.1, 0.7, 0.2]]), axis=-1)
    assert int(y[0]) == 1 and operator.index(y[0]) == 1
    assert ['a', 'b', 'c'][keras.ops.convert_to_tensor(2)] == 'c'
    assert float(keras.ops.sum(chainlet.Variable(np.array([1.0, 2.0])))) == 3.0
    assert int(chainlet.Variable(np.array([3.7]))) == 3
    assert ['a', 'b', 'c'][chainlet.Variable(np.array(1, np.int64))] == 'b'
    assert list(range(chainlet.Variable(np.array([3], np.int32)))) == [0, 1, 2]
    assert complex(chainlet.Variable(np.array(2.0))) == 2 + 0j


def test_conversion_errors():
    with pytest.raises(TypeError, match='one element'):
        int(chainlet.Variable(np.zeros(2)))
    with pytest.raises(TypeError, match='integer'):
        operator.index(chainlet.Variable(np.array(1.0)))
    with pytest.raises(TypeError, match='no data'):
        np.asarray(chainlet.Parameter())


@pytest.mark.parametrize('convert', [int, float, operator.index, np.asarray])
def test_symbolic_tensor_refuses(convert):
    x = keras.Input(shape=(3,))
    with pytest.raises(TypeError, match='symbolic'):
        convert(x)
