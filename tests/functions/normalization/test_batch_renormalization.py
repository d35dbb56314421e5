import warnings

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import gradient_check


def _reference(x, gamma, beta, rmax, dmax, eps, running_mean, running_var, param_ndim):
    axes = (0,) + tuple(range(1 + param_ndim, x.ndim))
    expand = (None, Ellipsis) + (None,) * (x.ndim - 1 - param_ndim)
    x = x.astype(np.float64)
    mean, std = x.mean(axis=axes), np.sqrt(x.var(axis=axes) + eps)
    sigma = np.sqrt(running_var + eps)
    r = np.clip(std / sigma, 1 / rmax, rmax)
    d = np.clip((mean - running_mean) / sigma, -dmax, dmax)
    x_hat = (x - mean[expand]) / std[expand] * r[expand] + d[expand]
    return gamma[expand] * x_hat + beta[expand], mean, x.var(axis=axes)


@pytest.mark.parametrize('param_shape, ndim', [((3,), 1), ((3, 4), 0), ((3, 2), 2)])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_batch_renormalization(param_shape, ndim, dtype):
    x = np.random.uniform(-1, 1, (5,) + param_shape + (2,) * ndim).astype(dtype)
    gamma = np.random.uniform(0.5, 1, param_shape).astype(dtype)
    beta = np.random.uniform(-1, 1, param_shape).astype(dtype)
    running_mean = np.random.uniform(-1, 1, param_shape).astype(dtype)
    running_var = np.random.uniform(0.5, 1.5, param_shape).astype(dtype)
    expected, mean, var = _reference(x, gamma, beta, 1.5, 0.3, 2e-5, running_mean,
                                     running_var, len(param_shape))
    rm, rv = running_mean.copy(), running_var.copy()
    y = F.batch_renormalization(x, gamma, beta, 1.5, 0.3, running_mean=rm, running_var=rv,
                                decay=0.75, update_statistics=True)
    assert y.dtype == dtype
    tol = 2e-2 if dtype == np.float16 else 1e-5
    np.testing.assert_allclose(y.array, expected, atol=tol, rtol=tol)
    m = x.size // gamma.size
    np.testing.assert_allclose(rm, 0.75 * running_mean + 0.25 * mean, atol=tol, rtol=tol)
    np.testing.assert_allclose(rv, 0.75 * running_var + 0.25 * var * m / (m - 1),
                               atol=tol, rtol=tol)


def test_batch_renormalization_statistics_untouched_by_default_and_gradients():
    x = np.random.uniform(-1, 1, (6, 3))
    gamma, beta = np.random.uniform(0.5, 1, 3), np.random.uniform(-1, 1, 3)
    rm, rv = np.random.uniform(-1, 1, 3), np.random.uniform(0.5, 1.5, 3)

    # r and d are constants in backward (as in the paper), so a numerical check only agrees
    # where they are clipped: running statistics far from the batch ones make sure they are.
    rm += 10.0
    rv *= 100.0
    before = rm.copy(), rv.copy()

    def f(x, gamma, beta):
        return F.batch_renormalization(x, gamma, beta, 1.2, 0.2, running_mean=rm,
                                       running_var=rv)

    gy = np.random.uniform(-1, 1, (6, 3))
    gradient_check.check_backward(f, (x, gamma, beta), gy)
    gradient_check.check_double_backward(f, (x, gamma, beta), gy,
                                         (np.random.uniform(-1, 1, (6, 3)),
                                          np.random.uniform(-1, 1, 3),
                                          np.random.uniform(-1, 1, 3)))
    np.testing.assert_array_equal(rm, before[0])
    np.testing.assert_array_equal(rv, before[1])


def test_fixed_batch_renormalization_is_deprecated_batch_normalization():
    x = np.random.uniform(-1, 1, (4, 3, 2))
    gamma, beta = np.ones(3), np.zeros(3)
    mean, var = np.random.uniform(-1, 1, 3), np.random.uniform(0.5, 1, 3)
    with pytest.warns(DeprecationWarning):
        y = F.fixed_batch_renormalization(x, gamma, beta, mean, var, eps=0.1)
    np.testing.assert_allclose(y.array, (x - mean[:, None]) / np.sqrt(var + 0.1)[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.batch_renormalization(x, gamma, beta, 1.0, 0.0)


def test_batch_renormalization_rejects_mismatched_gamma():
    with pytest.raises(TypeError, match='batch_renormalization: argument gamma'):
        F.batch_renormalization(np.zeros((2, 3)), np.ones(4), np.zeros(4), 1.0, 0.0)
