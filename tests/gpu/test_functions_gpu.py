"""Fused GPU kernels against the NumPy code: forward, gradient and gradient of the gradient.

Every test is marked ``gpu``; tests/conftest.py skips them (with the reason) when CuPy or a
CUDA device is missing.
"""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import assert_allclose, default_tolerances

pytestmark = pytest.mark.gpu

DTYPES = (np.float16, np.float32, np.float64)


@pytest.fixture
def cupy():
    import cupy
    return cupy


def _grads(func, arrays, gy, ggx):
    """``y``, ``dy/dx . gy`` and ``d(dy/dx . gy)/dx . ggx`` for the first input."""
    xs = [chainlet.Variable(a) for a in arrays]
    y = func(*xs)
    gx, = chainlet.grad([y], [xs[0]], [chainlet.Variable(gy)], enable_double_backprop=True)
    ggx_out, = chainlet.grad([gx], [xs[0]], [chainlet.Variable(ggx)])
    # None: the gradient does not depend on x (relu-like functions)
    return y.array, gx.array, None if ggx_out is None else ggx_out.array


def _compare(cupy, func, arrays, seed=0, kinds=('forward', 'backward', 'double_backward')):
    """Run ``func`` on NumPy and on CuPy copies of ``arrays``; compare the three results."""
    rng = np.random.default_rng(seed)
    x = arrays[0]
    y_cpu = func(*[chainlet.Variable(a) for a in arrays]).array
    gy = rng.standard_normal(y_cpu.shape).astype(y_cpu.dtype)
    ggx = rng.standard_normal(x.shape).astype(x.dtype)
    cpu = _grads(func, arrays, gy, ggx)
    gpu = _grads(func, [cupy.asarray(a) for a in arrays], cupy.asarray(gy), cupy.asarray(ggx))
    for kind, c, g in zip(kinds, cpu, gpu):
        if c is None:
            assert g is None, kind
            continue
        assert isinstance(g, cupy.ndarray), kind
        assert_allclose(g, c, err_msg=f"{kind}: ", check_dtype=True,
                        **default_tolerances(kind, x.dtype))


def _beta(shape, dtype):
    return np.linspace(0.5, 1.5, shape[1]).astype(dtype)


ACTIVATIONS = {
    'relu': F.relu, 'sigmoid': F.sigmoid, 'tanh': F.tanh, 'elu': F.elu,
    'elu_alpha': lambda x: F.elu(x, 0.5), 'selu': F.selu, 'celu': lambda x: F.celu(x, 2.0),
    'gelu': F.gelu, 'silu': F.silu, 'softplus': F.softplus,
    'softplus_beta': lambda x: F.softplus(x, 2.5), 'leaky_relu': F.leaky_relu,
    'leaky_relu_negative': lambda x: F.leaky_relu(x, -0.3),
    'log_softmax': F.log_softmax, 'log_softmax_axis0': lambda x: F.log_softmax(x, 0),
}


@pytest.mark.parametrize('name', sorted(ACTIVATIONS))
@pytest.mark.parametrize('dtype', DTYPES)
def test_activations_match_cpu(cupy, name, dtype):
    x = np.random.default_rng(1).uniform(-3, 3, (4, 5, 3)).astype(dtype)
    x[np.abs(x) < 0.05] = 0.5  # keep away from the kinks of relu-like functions
    _compare(cupy, ACTIVATIONS[name], [x])


@pytest.mark.parametrize('dtype', DTYPES)
def test_swish_matches_cpu(cupy, dtype):
    x = np.random.default_rng(2).uniform(-3, 3, (4, 5, 3)).astype(dtype)
    _compare(cupy, lambda x, b: F.swish(x, b), [x, _beta(x.shape, dtype)])


@pytest.mark.parametrize('name', ['sigmoid', 'tanh', 'softplus', 'gelu', 'log_softmax', 'elu'])
def test_activations_in_the_tails(cupy, name):
    x = np.array([[-80.0, -30.0, -1e-3, 0.0, 1e-3, 30.0, 80.0]], np.float32)
    y_cpu = ACTIVATIONS[name](x).array
    y_gpu = ACTIVATIONS[name](cupy.asarray(x)).array
    assert_allclose(y_gpu, y_cpu, atol=1e-30, rtol=1e-5)


def test_zero_size_and_0d(cupy):
    for f in (F.relu, F.sigmoid, F.tanh, F.gelu, F.softplus):
        assert f(cupy.zeros((0, 3), np.float32)).shape == (0, 3)
        y = f(cupy.asarray(np.float32(0.5)))
        assert y.shape == () and isinstance(y.array, cupy.ndarray)
    assert F.log_softmax(cupy.zeros((0, 3), np.float32)).shape == (0, 3)


def test_non_contiguous_input(cupy):
    x = np.random.default_rng(3).uniform(-2, 2, (6, 8)).astype(np.float32)
    xg = cupy.asarray(x)[:, ::2]
    assert not xg.flags.c_contiguous
    for f in (F.relu, F.tanh, F.log_softmax):
        assert_allclose(f(xg).array, f(x[:, ::2]).array)


@pytest.mark.parametrize('options', [
    {}, {'reduce': 'no'}, {'normalize': False}, {'cache_score': False},
    {'class_weight': True}, {'class_weight': True, 'reduce': 'no'}, {'ignore_label': 2}])
@pytest.mark.parametrize('shape', [(5, 4), (3, 4, 2, 3)])
@pytest.mark.parametrize('dtype', DTYPES)
def test_softmax_cross_entropy_matches_cpu(cupy, options, shape, dtype):
    rng = np.random.default_rng(4)
    x = rng.uniform(-3, 3, shape).astype(dtype)
    t = rng.integers(0, shape[1], (shape[0],) + shape[2:]).astype(np.int32)
    options = dict(options)
    t.ravel()[::3] = options.get('ignore_label', -1)  # some ignored instances
    if options.pop('class_weight', False):
        weight = np.linspace(0.5, 2.0, shape[1]).astype(dtype)
    else:
        weight = None

    def func(x, weight=weight):
        if weight is not None and isinstance(x.array, cupy.ndarray):
            weight = cupy.asarray(weight)
        tt = cupy.asarray(t) if isinstance(x.array, cupy.ndarray) else t
        return F.softmax_cross_entropy(x, tt, class_weight=weight, **options)

    _compare(cupy, func, [x])


def test_softmax_cross_entropy_int64_labels_and_debug_check(cupy):
    x = cupy.asarray(np.random.default_rng(5).standard_normal((4, 3)).astype(np.float32))
    t = cupy.asarray(np.array([0, 2, 1, 2], np.int64))
    loss = F.softmax_cross_entropy(x, t)
    expected = F.softmax_cross_entropy(cupy.asnumpy(x), cupy.asnumpy(t)).array
    assert_allclose(loss.array, expected)
    with chainlet.using_config('debug', True):
        with pytest.raises(ValueError, match=r'expected labels in \[0, 3\)'):
            F.softmax_cross_entropy(x, cupy.asarray(np.array([0, 5, 1, 2], np.int32)))


@pytest.mark.parametrize('shape', [(6, 3), (4, 3, 5, 2)])
@pytest.mark.parametrize('dtype', DTYPES)
def test_batch_normalization_matches_cpu(cupy, shape, dtype):
    rng = np.random.default_rng(6)
    x = rng.uniform(-2, 2, shape).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, shape[1]).astype(dtype)
    beta = rng.uniform(-1, 1, shape[1]).astype(dtype)
    tol = {np.float16: 'backward'}.get(dtype, 'forward')
    _compare(cupy, F.batch_normalization, [x, gamma, beta])
    # gamma and beta gradients, and the running statistics
    stats = {}
    for xp_name, conv in (('cpu', lambda a: a), ('gpu', cupy.asarray)):
        mean, var = conv(np.zeros(shape[1], dtype)), conv(np.ones(shape[1], dtype))
        g, b = chainlet.Variable(conv(gamma)), chainlet.Variable(conv(beta))
        y = F.batch_normalization(conv(x), g, b, running_mean=mean, running_var=var)
        (y * y).sum().backward()
        stats[xp_name] = (g.grad, b.grad, mean, var)
    for c, g in zip(stats['cpu'], stats['gpu']):
        assert_allclose(g, c, check_dtype=True, **default_tolerances(tol, dtype))


def test_dropout_mask_and_backward(cupy):
    x = cupy.ones((200, 300), np.float32)
    y, mask = F.dropout(chainlet.Variable(x), 0.25, return_mask=True)
    m = cupy.asnumpy(mask)
    assert set(np.unique(m).tolist()) <= {0.0, np.float32(1 / 0.75)}
    assert abs((m == 0).mean() - 0.25) < 0.01
    assert_allclose(y.array, x * mask)
    xv = chainlet.Variable(cupy.asarray(np.arange(6, dtype=np.float64).reshape(2, 3)))
    y, mask = F.dropout(xv, 0.5, return_mask=True)
    y.grad = cupy.ones_like(y.array)
    y.backward()
    assert_allclose(xv.grad, mask)
    given = cupy.asarray(np.array([[2, 0, 2], [0, 2, 2]], np.float64))
    assert_allclose(F.dropout(xv, mask=given).array, xv.array * given)
    with chainlet.using_config('train', False):
        assert F.dropout(xv).array is xv.array


def test_mixed_numpy_and_cupy_raise(cupy):
    with pytest.raises(TypeError, match='input 0 is numpy.ndarray but input 1 is cupy.ndarray'):
        F.add(np.zeros(2, np.float32), cupy.zeros(2, np.float32))


def test_arrays_on_two_gpus_raise_and_kernels_follow_the_input(cupy):
    if cupy.cuda.runtime.getDeviceCount() < 2:
        pytest.skip('needs two GPUs')
    with cupy.cuda.Device(1):
        b = cupy.ones(2, np.float32)
    a = cupy.ones(2, np.float32)
    with pytest.raises(TypeError, match='input 0 is on @cupy:0 but input 1 is on @cupy:1'):
        F.add(a, b)
    x = chainlet.Variable(b)
    y = F.relu(F.tanh(x))
    assert y.array.device.id == 1
    with cupy.cuda.Device(1):  # *_like allocates on the current device
        y.grad = cupy.ones_like(y.array)
    y.backward()
    assert x.grad.device.id == 1
