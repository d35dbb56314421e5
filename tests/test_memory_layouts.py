"""chainlet.memory_layouts: Chainer 7.8's layout names and shape/array conversions."""
import numpy as np
import pytest

import chainlet
from chainlet import memory_layouts as ml


def test_standard_layouts_are_none():
    assert ml.CUDNN_CHANNEL_FIRST_X is None and ml.CUDNN_CHANNEL_FIRST_W is None
    assert ml.CUDNN_CHANNEL_LAST_X == 'CUDNN_CHANNEL_LAST_X'
    assert ml.CUDNN_CHANNEL_LAST_W == 'CUDNN_CHANNEL_LAST_W'


def test_raw_and_semantic_shape_of_a_variable():
    x = chainlet.Variable(np.zeros((2, 3, 4, 5), np.float32))
    assert ml.get_raw_shape(x) == (2, 3, 4, 5)
    assert ml.get_semantic_shape(x) == (2, 3, 4, 5)
    assert ml.get_semantic_shape(x, assumed_layout=None) == (2, 3, 4, 5)
    with pytest.raises(ValueError, match='assumed_layout'):
        ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X)


def test_semantic_shape_of_a_channels_last_array():
    x = np.zeros((2, 5, 7, 3))
    assert ml.get_raw_shape(x) == (2, 5, 7, 3)
    assert ml.get_semantic_shape(x) == (2, 5, 7, 3)
    assert ml.get_semantic_shape(x, assumed_layout=ml.CUDNN_CHANNEL_LAST_X) == (2, 3, 5, 7)


@pytest.mark.parametrize('last, first', [(ml.CUDNN_CHANNEL_LAST_X, ml.CUDNN_CHANNEL_FIRST_X),
                                         (ml.CUDNN_CHANNEL_LAST_W, ml.CUDNN_CHANNEL_FIRST_W)])
def test_transpose_array_round_trip(last, first):
    x = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    y = ml._transpose_array(x, first, last)
    np.testing.assert_array_equal(y, x.transpose(0, 2, 3, 1))
    np.testing.assert_array_equal(ml._transpose_array(y, last, first), x)
    assert ml._transpose_array(x, first, first) is x
    assert ml._transpose_shape((2, 3, 4, 5), first, last) == (2, 4, 5, 3)


def test_transpose_axes_inverse_and_errors():
    axes = ml._get_layout_transpose_axes(4, None, ml.CUDNN_CHANNEL_LAST_X)
    inv = ml._get_layout_transpose_axes(4, None, ml.CUDNN_CHANNEL_LAST_X, inverse=True)
    assert axes == (0, 2, 3, 1) and inv == (0, 3, 1, 2)
    assert ml._get_layout_transpose_axes(4, None, None) is None
    with pytest.raises(ValueError, match='unknown layout conversion'):
        ml._get_layout_transpose_axes(4, ml.CUDNN_CHANNEL_LAST_X, ml.CUDNN_CHANNEL_LAST_W)
    with pytest.raises(ValueError, match='at least 3'):
        ml._get_layout_transpose_axes(2, None, ml.CUDNN_CHANNEL_LAST_X)


def test_as_layout_is_differentiable():
    x = chainlet.Variable(np.random.rand(2, 3, 4, 5).astype(np.float32))
    y, = ml.AsLayout(ml.CUDNN_CHANNEL_LAST_X).apply((x,))
    np.testing.assert_array_equal(y.array, x.array.transpose(0, 2, 3, 1))
    gy = np.random.rand(*y.shape).astype(np.float32)
    y.grad = gy
    y.backward()
    np.testing.assert_array_equal(x.grad, gy.transpose(0, 3, 1, 2))


def test_variable_and_parameter_take_the_standard_layout_only():
    data = np.zeros((2, 3, 4, 5), np.float32)
    assert chainlet.Variable(data, layout=ml.CUDNN_CHANNEL_FIRST_X).layout is None
    assert chainlet.Parameter(data, layout=None).layout is None
    with pytest.raises(ValueError, match='layout'):
        chainlet.Variable(data, layout=ml.CUDNN_CHANNEL_LAST_X)
    with pytest.raises(ValueError, match='layout'):
        chainlet.Parameter(data, layout=ml.CUDNN_CHANNEL_LAST_W)
    with pytest.raises(TypeError, match='unexpected keyword'):
        chainlet.Variable(data, layout=None, colour=1)


def test_reachable_as_an_attribute_of_the_package():
    # Chainer code writes chainer.memory_layouts.X after a bare `import chainer`.
    assert chainlet.memory_layouts is ml
