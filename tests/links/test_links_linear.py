import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import initializers
from chainlet.gradient_check import check_backward
from chainlet.type_check import InvalidType


def test_forward_matches_function():
    rng = np.random.RandomState(0)
    layer = L.Linear(4, 3)
    x = rng.randn(5, 4).astype(np.float32)
    y = layer(x)
    expected = F.linear(x, layer.W.array, layer.b.array).array
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)
    np.testing.assert_allclose(y.array, x @ layer.W.array.T + layer.b.array, rtol=1e-5)
    assert layer.W.shape == (3, 4) and layer.b.shape == (3,)
    assert layer.W.dtype == np.float32 and layer.b.dtype == np.float32
    np.testing.assert_array_equal(layer.b.array, np.zeros(3, np.float32))


def test_initializers_and_nobias():
    w = np.arange(6.0).reshape(2, 3)
    layer = L.Linear(3, 2, initialW=w, initial_bias=np.array([1.0, -1.0]))
    assert layer.W.dtype == np.float64 and layer.b.dtype == np.float64
    np.testing.assert_array_equal(layer.W.array, w)
    assert layer.W.array is not w  # the initial array is copied
    layer = L.Linear(3, 2, nobias=True, initialW=initializers.Constant(2.0))
    assert layer.b is None
    assert [n for n, _ in layer.namedparams()] == ['/W']
    np.testing.assert_array_equal(layer(np.ones((1, 3), np.float32)).array, [[6.0, 6.0]])


def test_lazy_in_size_and_batch_axes():
    layer = L.Linear(4)
    assert layer.in_size is None and layer.out_size == 4
    assert layer.W.array is None and layer.b.shape == (4,)
    x = np.ones((2, 3, 5), np.float32)
    assert layer(x).shape == (2, 4)
    assert layer.W.shape == (4, 15)
    layer = L.Linear(None, 2)
    assert layer(x, n_batch_axes=2).shape == (2, 3, 2)
    assert layer.W.shape == (2, 5)


def test_config_dtype_and_initializer_copy():
    init = initializers.Normal(0.1)
    with chainlet.using_config('dtype', np.float64):
        layer = L.Linear(3, 2, initialW=init)
    assert layer.W.dtype == np.float64 and layer.b.dtype == np.float64
    assert init.dtype is None  # the user's initializer is left alone
    # An initializer with its own dtype keeps it (Chainer): W float16, b float32.
    layer = L.Linear(3, 2, initialW=initializers.Normal(0.1, dtype=np.float16),
                     initial_bias=initializers.Zero(np.float32))
    assert layer.W.dtype == np.float16 and layer.b.dtype == np.float32
    y = layer(np.ones((4, 3), np.float32))
    assert y.dtype == np.float32
    np.testing.assert_allclose(y.array, np.ones((4, 3)) @ layer.W.array.T.astype(np.float32),
                               rtol=1e-3)


def test_gradient_check_float64():
    rng = np.random.RandomState(1)
    layer = L.Linear(3, 2, initialW=rng.randn(2, 3), initial_bias=rng.randn(2))
    x = rng.randn(4, 3)
    gy = rng.randn(4, 2)
    check_backward(layer, x, gy, params=list(layer.params()), seed=0)


def test_errors():
    layer = L.Linear(3, 2)
    with pytest.raises(InvalidType, match='linear: argument W'):
        layer(np.zeros((2, 4), np.float32))
    with pytest.raises(TypeError, match='Linear: argument out_size'):
        L.Linear(3, 2.5)
    with pytest.raises(ValueError, match='Linear: argument in_size'):
        L.Linear(0, 2)
    with pytest.raises(TypeError, match='initialW'):
        L.Linear(3, 2, initialW='zeros')


def test_repr_copy_and_device():
    layer = L.Linear(3, 2)
    assert repr(layer) == 'Linear(in_size=3, out_size=2, nobias=False)'
    assert repr(L.Linear(2)) == 'Linear(in_size=None, out_size=2, nobias=False)'
    deep = layer.copy('copy')
    assert deep.W.array is not layer.W.array
    np.testing.assert_array_equal(deep.W.array, layer.W.array)
    shared = layer.copy('share')
    assert shared.W.array is layer.W.array
    assert layer.to_device('@numpy') is layer
    assert layer(np.zeros((1, 3), np.float32)).shape == (1, 2)


@pytest.mark.parametrize('nobias', [True, False])
def test_from_params(nobias):
    rng = np.random.RandomState(0)
    W, b = rng.randn(3, 5).astype(np.float32), rng.randn(3).astype(np.float32)
    layer = L.Linear.from_params(chainlet.Variable(W), b, nobias=nobias)
    assert (layer.in_size, layer.out_size) == (5, 3)
    np.testing.assert_array_equal(layer.W.array, W)
    assert layer.W.array is not W
    if nobias:
        assert layer.b is None
    else:
        np.testing.assert_array_equal(layer.b.array, b)
    with pytest.raises(ValueError, match='out_size'):
        L.Linear.from_params(W, np.zeros(4, np.float32))
