"""WeightStandardization: the standardized weight, its gradient, lazy weights, registration,
and the helper functions of spectral normalization that Chainer exposes."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet import gradient_check
from chainlet.link_hooks import WeightStandardization
from chainlet.link_hooks import spectral_normalization as sn


def standardized(W, eps):
    W = W.astype(np.float64)
    axes = tuple(range(1, W.ndim))
    mean = W.mean(axis=axes, keepdims=True)
    var = W.var(axis=axes, keepdims=True)
    return (W - mean) / np.sqrt(var + eps)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_linear_forward_uses_the_standardized_weight(dtype):
    layer = L.Linear(5, 3)
    layer.to_device('@numpy')
    layer.W.array = layer.W.array.astype(dtype)
    layer.b.array = layer.b.array.astype(dtype)
    raw = layer.W.array.copy()
    layer.add_hook(WeightStandardization())
    x = np.random.rand(2, 5).astype(dtype)
    y = layer(x)
    expected = x.astype(np.float64) @ standardized(raw, 1e-5).T
    tol = {np.float16: 5e-2, np.float32: 1e-5, np.float64: 1e-10}[dtype]
    np.testing.assert_allclose(y.array, expected, rtol=tol, atol=tol)
    assert isinstance(layer.W, chainlet.Parameter)
    np.testing.assert_array_equal(layer.W.array, raw)  # the parameter is untouched


def test_convolution_and_gradient_flow_through_the_standardization():
    conv = L.Convolution2D(2, 3, 2, nobias=True).add_hook(WeightStandardization(eps=1e-3))
    raw = conv.W.array.astype(np.float64)
    conv.W.array = raw.copy()
    conv.W.cleargrad()  # drop the float32 gradient buffer of the initial weight
    x = np.random.rand(1, 2, 3, 3)
    y = conv(x)
    expected = F.convolution_2d(x, standardized(raw, 1e-3)).array
    np.testing.assert_allclose(y.array, expected, rtol=1e-10)
    F.sum(y * y).backward()
    assert conv.W.grad is not None and conv.W.grad.shape == raw.shape

    def f(W):
        hook = WeightStandardization(eps=1e-3)
        return F.convolution_2d(x, hook.standardize(conv, W))
    gradient_check.check_backward(f, raw, np.random.rand(*y.shape), dtype=np.float64,
                                  atol=1e-5, rtol=1e-4)
    gradient_check.check_double_backward(f, raw, np.random.rand(*y.shape), np.random.rand(
        *raw.shape), dtype=np.float64, atol=1e-4, rtol=1e-3)


def test_lazy_weight_is_created_from_the_first_input():
    layer = L.Linear(None, 4).add_hook(WeightStandardization())
    y = layer(np.ones((2, 3, 2), np.float32))
    assert layer.W.shape == (4, 6) and y.shape == (2, 4)


def test_registration_errors_and_delete():
    with pytest.raises(ValueError, match="has no weight 'V'"):
        L.Linear(2, 2).add_hook(WeightStandardization(weight_name='V'))
    with pytest.raises(ValueError, match='eps'):
        WeightStandardization(eps=-1.0)
    with pytest.raises(TypeError):
        WeightStandardization(1e-5)  # keyword-only, as in Chainer
    hook = WeightStandardization(name='ws')
    with pytest.raises(NotImplementedError):
        with hook:
            pass
    layer = L.Linear(3, 2).add_hook(hook)
    assert 'ws' in layer.local_link_hooks
    layer.delete_hook('ws')
    x = np.ones((1, 3), np.float32)
    np.testing.assert_allclose(layer(x).array, x @ layer.W.array.T + layer.b.array)


def test_spectral_normalization_helpers():
    rng = np.random.RandomState(0)
    W = chainlet.Variable(rng.randn(4, 6))
    u, v = sn.update_approximate_vectors(W, rng.randn(4), 100, 1e-12)
    assert u.shape == (4,) and v.shape == (6,)
    np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-10)
    sigma = sn.calculate_max_singular_value(W, u, v)
    np.testing.assert_allclose(sigma.array, np.linalg.svd(W.array, compute_uv=False)[0],
                               rtol=1e-8)
    sigma.backward()
    np.testing.assert_allclose(W.grad, np.outer(u, v), rtol=1e-10)  # d(u W v)/dW
    np.testing.assert_allclose(sn.l2normalize(np, np.array([3., 4.]), 0.0), [0.6, 0.8])
