"""float16 reductions accumulate in float32: a mean over more than 65504 elements is right.

A float16 running sum stops growing at 2048 and overflows past 65504, so ``sum(x) / n`` of a
256x256 float16 image of 0.5 was 0 (or NaN) with a zero gradient. Each family below runs in
float16 on inputs big enough to overflow and is compared with the same computation in float64.
"""
from __future__ import annotations

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.keras import losses as keras_losses
from chainlet.keras import ops

N_BIG = 256 * 256  # one more element than float16 can count up to in a sum of ones


def _run(fn, arrays, dtype):
    # Both runs start from the same (float16) values, so only the arithmetic differs.
    arrays = [a.astype(np.float16) for a in arrays]
    xs = [chainlet.Variable(a.astype(dtype)) for a in arrays]
    y = fn(*xs)
    y.grad = np.ones(y.shape, dtype)
    y.backward()
    return y.array, [x.grad for x in xs]


def assert_f16_matches_f64(fn, *arrays, rtol=1e-2):
    """Forward and gradients of ``fn`` in float16 match float64 within float16's tolerance,
    and stay float16."""
    y16, g16 = _run(fn, arrays, np.float16)
    y64, g64 = _run(fn, arrays, np.float64)
    assert y16.dtype == np.float16
    np.testing.assert_allclose(y16.astype(np.float64), y64, rtol=rtol,
                               atol=rtol * float(np.max(np.abs(y64))))
    for a, b in zip(g16, g64):
        if b is None:
            continue
        assert a.dtype == np.float16
        assert np.isfinite(a).all()
        np.testing.assert_allclose(a.astype(np.float64), b, rtol=rtol,
                                   atol=rtol * float(np.max(np.abs(b))) + 1e-7)


def test_mean_of_big_float16_image_is_its_value():
    x = chainlet.Variable(np.full((256, 256), 0.5, np.float16))
    y = F.mean(x)
    y.backward()
    assert y.dtype == np.float16 and float(y.array) == 0.5
    np.testing.assert_allclose(x.grad.astype(np.float64), 1.0 / N_BIG, rtol=1e-3)


@pytest.mark.parametrize('fn', [
    pytest.param(lambda x: F.mean(x), id='mean'),
    pytest.param(lambda x: F.mean(x, axis=1), id='mean_axis'),
    pytest.param(lambda x: F.average(x), id='average'),
    pytest.param(lambda x: F.average(x, axis=1, keepdims=True), id='average_axis'),
    pytest.param(lambda x: F.sum(x) * 1e-4, id='sum'),
    pytest.param(lambda x: ops.mean(x), id='keras_ops_mean'),
    pytest.param(lambda x: ops.var(x), id='keras_ops_var'),
    pytest.param(lambda x: ops.std(x, axis=1), id='keras_ops_std'),
    pytest.param(lambda x: F.gaussian_kl_divergence(x, x * 0.1, reduce='mean'),
                 id='gaussian_kl_divergence'),
    pytest.param(lambda x: F.gaussian_nll(x, x * 0.5, x * 0.1, reduce='mean'),
                 id='gaussian_nll'),
    pytest.param(lambda x: F.bernoulli_nll(x, x, reduce='mean'), id='bernoulli_nll'),
])
def test_mean_reductions(fn):
    x = np.random.RandomState(0).uniform(0.5, 1.0, (2, N_BIG // 2 + 1))
    assert_f16_matches_f64(fn, x)


def test_sum_accumulates_in_float32():
    # A float16 running sum of 0.01 stops growing near 32 (the spacing there is 0.03).
    x = np.full(20000, 0.01)
    y16 = F.sum(x.astype(np.float16)).array
    assert y16.dtype == np.float16
    np.testing.assert_allclose(float(y16), 200.0, rtol=1e-3)


def test_weighted_average():
    x = np.random.RandomState(1).uniform(0.5, 1.0, (4, N_BIG // 2))
    w = np.random.RandomState(2).uniform(0.5, 1.0, x.shape)
    assert_f16_matches_f64(lambda a, b: F.average(a, weights=b), x, w)


@pytest.mark.parametrize('loss', [
    pytest.param(lambda x, t: F.hinge(x, t), id='hinge'),
    pytest.param(lambda x, t: F.softmax_cross_entropy(
        x, F.softmax(x).array * 0 + 0.5, reduce='mean'), id='softmax_cross_entropy_soft'),
    pytest.param(lambda x, t: F.softmax_cross_entropy(x, t), id='softmax_cross_entropy'),
    pytest.param(lambda x, t: F.sigmoid_cross_entropy(x, np.stack([t, t], 1)),
                 id='sigmoid_cross_entropy'),
])
def test_classification_losses(loss):
    rs = np.random.RandomState(3)
    n = N_BIG // 2 + 100
    x = rs.uniform(-1, 1, (n, 2))
    t = rs.randint(0, 2, n).astype(np.int32)
    assert_f16_matches_f64(lambda v: loss(v, t), x)


@pytest.mark.parametrize('loss', [
    pytest.param(lambda a, b: F.mean_squared_error(a, b), id='mean_squared_error'),
    pytest.param(lambda a, b: F.mean_absolute_error(a, b), id='mean_absolute_error'),
    pytest.param(lambda a, b: F.contrastive(a, b, np.ones(len(a), np.int32)),
                 id='contrastive'),
    pytest.param(lambda a, b: F.triplet(a, b, b * 2.0, margin=100.0), id='triplet'),
])
def test_regression_losses(loss):
    rs = np.random.RandomState(4)
    a = rs.uniform(0, 1, (N_BIG + 10, 2))
    b = rs.uniform(1, 2, (N_BIG + 10, 2))
    assert_f16_matches_f64(loss, a, b)


@pytest.mark.parametrize('make', [
    pytest.param(lambda: keras_losses.MeanSquaredError(), id='MeanSquaredError'),
    pytest.param(lambda: keras_losses.MeanAbsoluteError(), id='MeanAbsoluteError'),
    pytest.param(lambda: keras_losses.Huber(), id='Huber'),
])
def test_keras_losses(make):
    rs = np.random.RandomState(5)
    t = rs.uniform(0, 1, (N_BIG + 10, 1))
    y = rs.uniform(1, 2, (N_BIG + 10, 1))
    loss = make()
    assert_f16_matches_f64(lambda a: loss(t.astype(a.dtype), a), y)


def _affine(c, dtype):
    return np.linspace(0.5, 1.5, c).astype(dtype), np.linspace(-1, 1, c).astype(dtype)


@pytest.mark.parametrize('norm', [
    pytest.param(lambda x: F.layer_normalization(x, *_affine(x.shape[1], x.dtype)),
                 id='layer_normalization'),
    pytest.param(lambda x: F.group_normalization(F.reshape(x, (1, 2, -1)), 1,
                                                 *_affine(2, x.dtype)), id='group_normalization'),
    pytest.param(lambda x: F.batch_normalization(F.transpose(x), *_affine(2, x.dtype)),
                 id='batch_normalization'),
])
def test_normalization_gradients(norm):
    x = np.random.RandomState(6).uniform(0, 4, (2, N_BIG // 2 + 10))
    # The weighted sum makes the gradients non-trivial (a plain sum has a zero gradient).
    w = np.random.RandomState(7).uniform(-1, 1, x.shape)

    def weighted(v):
        y = norm(v)
        return F.mean(y * F.reshape(chainlet.Variable(w.astype(v.dtype)), y.shape))

    assert_f16_matches_f64(weighted, x, rtol=3e-2)


def test_batch_normalization_double_backward():
    x = np.random.RandomState(8).uniform(0, 4, (N_BIG + 10, 2))
    gamma, beta = _affine(2, np.float64)

    def second(v):
        y = F.batch_normalization(v, gamma.astype(v.dtype), beta.astype(v.dtype))
        w = np.linspace(-1, 1, y.size).reshape(y.shape).astype(v.dtype)
        # (the float16 sum overflows; its gradient, ones, does not depend on its value)
        gx, = chainlet.grad([F.sum(y * y * w)], [v], enable_double_backprop=True)
        return F.mean(gx * gx)

    y16 = second(chainlet.Variable(x.astype(np.float16))).array
    y64 = second(chainlet.Variable(x)).array
    assert np.isfinite(y16)
    np.testing.assert_allclose(float(y16), float(y64), rtol=5e-2)


def test_discriminative_loss():
    rs = np.random.RandomState(9)
    emb = rs.uniform(0, 1, (1, 2, 256, 257))
    labels = np.zeros((1, 256, 257), np.int32)
    labels[:, :200] = 1
    labels[:, 200:] = 2

    def total(e):
        l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
            e, labels, 0.1, 1.0, 2, gamma=1.0)
        return l_var + l_dist + l_reg

    assert_f16_matches_f64(total, emb, rtol=2e-2)


def test_batch_renormalization():
    x = np.random.RandomState(10).uniform(0, 4, (N_BIG + 10, 2))
    gamma, beta = _affine(2, np.float64)

    def renorm(v):
        y = F.batch_renormalization(v, gamma.astype(v.dtype), beta.astype(v.dtype), 2.0, 1.0,
                                    running_mean=np.full(2, 2.0, v.dtype),
                                    running_var=np.full(2, 1.3, v.dtype))
        w = np.linspace(-1, 1, y.size).reshape(y.shape).astype(v.dtype)
        # (times 1000: gradients of about 1 / N would be float16 subnormals, good to 1e-7)
        return F.mean(y * w) * 1000.0

    assert_f16_matches_f64(renorm, x, rtol=3e-2)


def test_broadcast_gradient_sums_in_float32():
    # The gradient of broadcast_to sums gy over the broadcast axis: NumPy does that in float16
    # along a strided axis, and w (a ramp from -1 to 1) cancelled to half its true total.
    w = np.linspace(-1, 1, 2000).reshape(1000, 2)
    assert_f16_matches_f64(
        lambda b: F.sum(F.broadcast_to(b, (1000, 2)) * w.astype(b.dtype)) + F.sum(b),
        np.ones((1, 2)), rtol=1e-2)
    assert_f16_matches_f64(lambda a: F.sum_to(a * 1.0, (1, 2)), w, rtol=1e-2)


def test_linear_bias_gradient():
    # Linear's first-order backward sums gy over the batch for the bias: in float32 too.
    w = np.linspace(-1, 1, 4000).reshape(2000, 2)
    x = np.ones((2000, 3))

    def linear(b):
        y = F.linear(x.astype(b.dtype), np.ones((2, 3), b.dtype), b)
        return F.sum(y * w.astype(b.dtype)) + F.sum(b)

    assert_f16_matches_f64(linear, np.ones(2), rtol=1e-2)


def test_r2_score():
    rs = np.random.RandomState(11)
    true = rs.uniform(0, 2, (N_BIG + 10,))
    pred = true + rs.uniform(-0.5, 0.5, true.shape)
    r16 = F.r2_score(pred.astype(np.float16), true.astype(np.float16)).array
    r64 = F.r2_score(pred.astype(np.float16).astype(np.float64),
                     true.astype(np.float16).astype(np.float64)).array
    assert r16.dtype == np.float16
    np.testing.assert_allclose(float(r16), float(r64), rtol=1e-2)


def test_keras_ops_weighted_average():
    x = np.random.RandomState(12).uniform(0.5, 1.0, (2 * N_BIG,))
    w = np.random.RandomState(13).uniform(0.5, 1.0, x.shape)
    assert_f16_matches_f64(lambda a, b: ops.average(a, weights=b), x, w)


def test_keras_ops_normalize():
    x = np.random.RandomState(14).uniform(100, 400, (2, 1000))
    w = np.linspace(-1, 1, x.size).reshape(x.shape)
    assert_f16_matches_f64(lambda a: F.sum(ops.normalize(a) * w.astype(a.dtype)) * 10.0, x)
    # A zero vector maps to zero, not NaN (float16's eps ** 2 = 1e-14 was 0: 0 / 0); its
    # gradient, 1 / eps = 1e7, overflows float16 to inf but is not NaN.
    z = chainlet.Variable(np.zeros((2, 3), np.float16))
    y = ops.normalize(z)
    y.grad = np.ones_like(y.array)
    with np.errstate(over='ignore'):
        y.backward()
    assert (y.array == 0).all() and not np.isnan(z.grad).any()
