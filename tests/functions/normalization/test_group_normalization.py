import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.functions.normalization.group_normalization import _MulInvStd
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _reference(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    xg = x.reshape(n, groups, x.size // max(n * groups, 1))
    if xg.size:
        mean = xg.mean(axis=2, keepdims=True)
        var = xg.var(axis=2, keepdims=True)
    else:
        mean = var = 0
    y = ((xg - mean) / np.sqrt(var + eps)).reshape(x.shape)
    pshape = (1, c) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(pshape) + beta.reshape(pshape)


class TestGroupNormalization(PytestFunctionTestCase):
    params = [{'shape': (2, 4, 3), 'groups': 2}, {'shape': (2, 6, 2, 2), 'groups': 3},
              {'shape': (3, 4), 'groups': 2}, {'shape': (2, 3, 2), 'groups': 1},
              {'shape': (2, 3, 4), 'groups': 3}, {'shape': (0, 4, 2), 'groups': 2}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        c = self.shape[1]
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(0.5, 1.5, c).astype(self.dtype),
                np.random.uniform(-1, 1, c).astype(self.dtype))

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return F.group_normalization(x, self.groups, gamma, beta),

    def forward_expected(self, inputs):
        x, gamma, beta = [a.astype(np.float64) for a in inputs]
        return _reference(x, self.groups, gamma, beta, 1e-5).astype(self.dtype),


def test_groups_equal_channels_is_instance_normalization():
    x = np.random.uniform(-1, 1, (2, 3, 4))
    y = F.group_normalization(x, 3, np.ones(3), np.zeros(3), eps=0.0).array
    np.testing.assert_allclose(y.mean(axis=2), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(axis=2), 1, rtol=1e-12)


def test_bad_arguments():
    x = np.zeros((2, 4, 3), np.float32)
    one, zero = np.ones(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(ValueError, match='group_normalization: argument groups: expected a '
                                         'divisor of the number of channels 4, got 3'):
        F.group_normalization(x, 3, one, zero)
    with pytest.raises(TypeError, match='group_normalization: argument groups: expected an int'):
        F.group_normalization(x, 2.0, one, zero)
    with pytest.raises(ValueError, match='argument groups: expected a positive int'):
        F.group_normalization(x, 0, one, zero)
    with pytest.raises(InvalidType, match=r'group_normalization: argument gamma: expected '
                                          r'shape \(4,\), got \(3,\)'):
        F.group_normalization(x, 2, np.ones(3, np.float32), zero)
    with pytest.raises(InvalidType, match='argument beta: expected dtype float32'):
        F.group_normalization(x, 2, one, np.zeros(4))
    with pytest.raises(InvalidType, match='argument x: expected ndim >= 2'):
        F.group_normalization(np.zeros(4, np.float32), 2, one, zero)


class TestMulInvStd(PytestFunctionTestCase):
    """The private node on its own: ``inv_std(x)[:, None] * y``, differentiable in ``x`` too."""
    params = [{'shape': (5, 4), 'eps': 1e-5}, {'shape': (3, 6), 'eps': 0.1},
              {'shape': (0, 3), 'eps': 1e-5}]
    dtypes = [np.float32, np.float64]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        x, y = inputs
        xv = x.array.astype(np.float64)
        mean = xv.mean(axis=1) if x.size else x.xp.zeros(x.shape[0])
        inv_std = (((xv - mean[:, None]) ** 2).mean(axis=1) + self.eps) ** -0.5 \
            if x.size else x.xp.ones(x.shape[0])
        return _MulInvStd(self.eps, mean.astype(self.dtype),
                          inv_std.astype(self.dtype)).apply((x, y))

    def forward_expected(self, inputs):
        x, y = [a.astype(np.float64) for a in inputs]
        inv_std = (x.var(axis=1) + self.eps) ** -0.5 if x.size else np.ones(x.shape[0])
        return (inv_std[:, None] * y).astype(self.dtype),


def test_mul_inv_std_gradient_wrt_x_matches_direct_formula():
    # d/dx_j sum_i g_i y_i inv_std(x) = -inv_std**3 * (x_j - mean) * sum(g * y) / m
    x = np.random.uniform(-1, 1, (2, 5))
    y = np.random.uniform(-1, 1, (2, 5))
    g = np.random.uniform(-1, 1, (2, 5))
    eps = 1e-3
    mean = x.mean(axis=1)
    inv_std = (x.var(axis=1) + eps) ** -0.5
    xv = chainlet.Variable(x)
    z, = _MulInvStd(eps, mean, inv_std).apply((xv, y))
    z.grad = g
    z.backward()
    gy_sum = (g * y).sum(axis=1, keepdims=True)
    expected = -(inv_std ** 3)[:, None] * (x - mean[:, None]) * gy_sum / 5
    np.testing.assert_allclose(xv.grad, expected, rtol=1e-10, atol=1e-12)


def test_mul_inv_std_bad_inputs():
    node = _MulInvStd(1e-5, np.zeros(3, np.float32), np.ones(3, np.float32))
    with pytest.raises(InvalidType, match=r'_MulInvStd: argument y: expected shape \(3, 2\)'):
        node.apply((np.zeros((3, 2), np.float32), np.zeros((3, 3), np.float32)))
    with pytest.raises(InvalidType, match='_MulInvStd: expected 2 inputs, got 1'):
        _MulInvStd(1e-5, np.zeros(3), np.ones(3)).apply((np.zeros((3, 2)),))


def test_gamma_and_beta_of_another_float_dtype():
    # Mixed precision, as in Chainer: float16 x with float32 gamma/beta gives a float16 output
    # and float32 parameter gradients.
    x = np.random.uniform(-1, 1, (3, 4, 5)).astype(np.float16)
    gamma = chainlet.Variable(np.random.uniform(0.5, 1, 4).astype(np.float32))
    beta = chainlet.Variable(np.random.uniform(-1, 1, 4).astype(np.float32))
    y = F.group_normalization(x, 2, gamma, beta)
    assert y.dtype == np.float16
    ref = F.group_normalization(x.astype(np.float32), 2, gamma.array, beta.array).array
    np.testing.assert_allclose(y.array, ref, atol=1e-2, rtol=1e-2)
    F.sum(y).backward()
    assert gamma.grad.dtype == np.float32 and beta.grad.dtype == np.float32
    with pytest.raises(InvalidType, match='argument beta: expected dtype float32, got float16'):
        F.group_normalization(x, 2, gamma, beta.array.astype(np.float16))
