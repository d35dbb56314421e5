import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.testing import PytestFunctionTestCase


def _whitened_input(n_channels, groups, ndim, dtype):
    """Inputs whose per-group covariance has well separated eigenvalues (>= 0.1 / m)."""
    m = 5 * 2 ** ndim
    x = np.random.uniform(-1, 1, (groups, n_channels // groups, m))
    a = x - x.mean(axis=2, keepdims=True)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    k = min(s.shape[1], m - 1)
    s[:, :k] += (0.1 + 0.01 * np.arange(k))[::-1]
    x = np.einsum('gij,gj,gjk->gik', u, s, vh) + x.mean(axis=2, keepdims=True)
    shape = (5, n_channels) + (2,) * ndim
    return x.reshape((n_channels, 5) + shape[2:]).swapaxes(0, 1).astype(dtype)


def _statistics(x, groups, eps):
    """Per-group mean and ZCA matrix, computed one group at a time."""
    means, projections = [], []
    for xi in np.split(x.astype(np.float64), groups, axis=1):
        flat = np.moveaxis(xi, 1, 0).reshape(xi.shape[1], -1)
        mean = flat.mean(axis=1)
        c = flat - mean[:, None]
        w, v = np.linalg.eigh(c @ c.T / flat.shape[1] + eps * np.eye(len(c)))
        means.append(mean)
        projections.append(v @ np.diag(w ** -0.5) @ v.T)
    return np.stack(means), np.stack(projections)


def _apply(x, mean, projection, groups):
    ys = []
    for xi, m, p in zip(np.split(x.astype(np.float64), groups, axis=1), mean, projection):
        flat = np.moveaxis(xi, 1, 0).reshape(xi.shape[1], -1)
        y = p @ (flat - m[:, None])
        ys.append(np.moveaxis(y.reshape((xi.shape[1], xi.shape[0]) + xi.shape[2:]), 0, 1))
    return np.concatenate(ys, axis=1)


class TestDecorrelatedBatchNormalization(PytestFunctionTestCase):
    params = [{'groups': g, 'ndim': n, 'eps': e}
              for g in (1, 2) for n in (0, 1, 2) for e in (2e-5, 0.5)]
    dtypes = (np.float32, np.float64)  # eigh has no float16
    skip_double_backward_test = True

    def setup(self):
        if self.dtype == np.float32:
            self.check_forward_options = {'atol': 1e-3, 'rtol': 1e-3}
            self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return _whitened_input(8, self.groups, self.ndim, self.dtype),

    def forward(self, inputs, device):
        return F.decorrelated_batch_normalization(inputs[0], groups=self.groups, eps=self.eps),

    def forward_expected(self, inputs):
        x, = inputs
        mean, projection = _statistics(x, self.groups, self.eps)
        return _apply(x, mean, projection, self.groups).astype(x.dtype),


class TestFixedDecorrelatedBatchNormalization(PytestFunctionTestCase):
    params = [{'groups': g, 'ndim': n} for g in (1, 2) for n in (0, 1, 2)]

    def setup(self):
        C = 8 // self.groups
        self.mean = np.random.uniform(-1, 1, (self.groups, C)).astype(self.dtype)
        self.projection = np.random.uniform(0.5, 1, (self.groups, C, C)).astype(self.dtype)
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (5, 8) + (2,) * self.ndim).astype(self.dtype),

    def forward(self, inputs, device):
        return F.fixed_decorrelated_batch_normalization(
            inputs[0], device.send(self.mean), device.send(self.projection), groups=self.groups),

    def forward_expected(self, inputs):
        x, = inputs
        return _apply(x, self.mean, self.projection, self.groups).astype(x.dtype),


def test_output_is_white_and_running_statistics_update():
    x = np.random.RandomState(1).normal(size=(200, 6)) @ np.random.RandomState(2).normal(
        size=(6, 6))
    mean = np.zeros((2, 3))
    projection = np.broadcast_to(np.eye(3), (2, 3, 3)).copy()
    y = F.decorrelated_batch_normalization(x, groups=2, eps=0.0, running_mean=mean,
                                           running_projection=projection, decay=0.5).array
    for yi in np.split(y, 2, axis=1):
        np.testing.assert_allclose(yi.T @ yi / 200, np.eye(3), atol=1e-8)
    batch_mean, batch_projection = _statistics(x, 2, 0.0)
    np.testing.assert_allclose(mean, 0.5 * batch_mean)
    np.testing.assert_allclose(projection,
                               0.5 * np.eye(3) + 0.5 * (200 / 199) * batch_projection)


def test_fixed_statistics_in_another_dtype_are_cast():
    x = np.random.uniform(-1, 1, (4, 2))
    mean = np.zeros((1, 2), np.float32)
    projection = np.eye(2, dtype=np.float32)[None]
    y = F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=1)
    assert y.dtype == np.float64
    np.testing.assert_allclose(y.array, x)
    gradient_check.check_backward(
        lambda m, p: F.fixed_decorrelated_batch_normalization(x, m, p, groups=1),
        (mean.astype(np.float64), projection.astype(np.float64)), np.ones((4, 2)))


def test_second_derivative_raises():
    x = chainlet.Variable(_whitened_input(4, 1, 1, np.float64))
    y = F.decorrelated_batch_normalization(x, groups=1)
    gx, = chainlet.grad([F.sum(y * y)], [x], enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='second derivative'):
        F.sum(gx).backward()


def test_errors():
    with pytest.raises(TypeError, match='divisible by groups=3'):
        F.decorrelated_batch_normalization(np.zeros((4, 8)), groups=3)
    with pytest.raises(ValueError, match='argument groups'):
        F.decorrelated_batch_normalization(np.zeros((4, 8)), groups=0)
    with pytest.raises(TypeError, match='argument projection'):
        F.fixed_decorrelated_batch_normalization(np.zeros((4, 8)), np.zeros((2, 4)),
                                                 np.zeros((2, 4, 3)), groups=2)
