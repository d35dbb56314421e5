import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def softplus_ref(x, beta):
    bx = x.astype(np.float64) * beta
    return np.asarray((np.maximum(bx, 0) + np.log1p(np.exp(-np.abs(bx)))) / beta, x.dtype)


class TestSoftplus(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'beta': 1.0}, {'shape': (3, 4), 'beta': 2.0},
              {'shape': (2, 3), 'beta': 0.5}, {'shape': (2, 3), 'beta': -1.5},
              {'shape': (), 'beta': 1.0}, {'shape': (0, 2), 'beta': 1.0}]

    def generate_inputs(self):
        return np.asarray(np.random.uniform(-3, 3, self.shape), self.dtype),

    def forward(self, inputs, device):
        return F.softplus(inputs[0], beta=self.beta),

    def forward_expected(self, inputs):
        return softplus_ref(inputs[0], self.beta),


class TestSoftplusLargeInputs(PytestFunctionTestCase):
    """|x| ~ 1e4: exp(beta * x) would overflow; values and gradients must stay exact."""
    params = [{'beta': 1.0}, {'beta': 3.0}]
    dtypes = (np.float32, np.float64)

    def generate_inputs(self):
        x = np.array([-1e4, -3e3, -0.5, 0.5, 3e3, 1e4]) * np.random.uniform(0.9, 1.1, 6)
        return np.asarray(x, self.dtype),

    def forward(self, inputs, device):
        return F.softplus(inputs[0], beta=self.beta),

    def forward_expected(self, inputs):
        return softplus_ref(inputs[0], self.beta),


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('beta', [1.0, 2.0])
def test_softplus_stable_at_1e4(dtype, beta):
    x = chainlet.Variable(np.array([-1e4, -20.0, 0.0, 20.0, 1e4], dtype))
    y = F.softplus(x, beta=beta)
    gx, = chainlet.grad([F.sum(y)], [x], enable_double_backprop=True)
    ggx, = chainlet.grad([F.sum(gx)], [x])
    for a in (y.array, gx.array, ggx.array):
        assert a.dtype == dtype and np.all(np.isfinite(a))
    np.testing.assert_allclose(y.array[[0, -1]], [0.0, 1e4], rtol=1e-3)
    np.testing.assert_allclose(y.array[2], np.log(2) / beta, rtol=1e-3)
    np.testing.assert_allclose(gx.array[[0, 2, -1]], [0.0, 0.5, 1.0], atol=1e-3)
    np.testing.assert_allclose(ggx.array[[0, -1]], [0.0, 0.0])
    np.testing.assert_allclose(ggx.array[2], beta / 4, rtol=1e-3)


def test_softplus_matches_chainer_example():
    y = F.softplus(np.array([-2.0, 0.0, 2.0], np.float32), beta=1.0)
    np.testing.assert_allclose(y.array, [0.126928, 0.6931472, 2.126928], rtol=1e-6)


def test_softplus_rejects_bad_arguments():
    with pytest.raises(ValueError, match='softplus: argument beta: expected a nonzero'):
        F.softplus(np.zeros(2), beta=0)
    with pytest.raises(TypeError, match='softplus: argument beta: expected a real number'):
        F.softplus(np.zeros(2), beta='2')
    with pytest.raises(InvalidType, match='softplus: argument x'):
        F.softplus(np.zeros(2, np.int64))


def test_beta_may_be_a_0d_array():
    # numpy.random.uniform(1, 2, ()) and other reductions give 0-d arrays; Chainer takes them.
    x = np.linspace(-1, 1, 5).astype(np.float32)
    y = F.softplus(x, beta=np.array(1.5))
    np.testing.assert_allclose(y.array, np.log1p(np.exp(1.5 * x)) / 1.5, rtol=1e-6)
    assert y.dtype == np.float32
    with pytest.raises(TypeError, match='softplus: argument beta'):
        F.softplus(x, beta=np.array([1.5]))
    with pytest.raises(TypeError, match='softplus: argument beta'):
        F.softplus(x, beta=np.array(True))
