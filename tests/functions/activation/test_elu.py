import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType

SELU_ALPHA = 1.6732632423543772
SELU_SCALE = 1.0507009873554805


def away_from_zero(shape, dtype, low=0.1, high=2.0):
    x = np.random.uniform(low, high, shape) * np.random.choice([-1.0, 1.0], shape)
    return np.asarray(x, dtype=dtype)


def elu_ref(x, alpha, scale=1.0, rate=1.0):
    xd = x.astype(np.float64)
    y = np.where(xd > 0, xd, alpha * np.expm1(np.minimum(xd, 0) * rate)) * scale
    return y.astype(x.dtype)


class TestELU(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'alpha': 1.0}, {'shape': (3, 4), 'alpha': 0.5},
              {'shape': (2, 3), 'alpha': -0.7}, {'shape': (), 'alpha': 1.0},
              {'shape': (0, 2), 'alpha': 1.0}]

    def generate_inputs(self):
        return away_from_zero(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.elu(inputs[0], alpha=self.alpha),

    def forward_expected(self, inputs):
        return elu_ref(inputs[0], self.alpha),


class TestSELU(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'kw': {}}, {'shape': (2, 3), 'kw': {'alpha': 1.2, 'scale': 2.0}},
              {'shape': (), 'kw': {}}, {'shape': (0, 2), 'kw': {}}]

    def generate_inputs(self):
        return away_from_zero(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.selu(inputs[0], **self.kw),

    def forward_expected(self, inputs):
        alpha = self.kw.get('alpha', SELU_ALPHA)
        scale = self.kw.get('scale', SELU_SCALE)
        return elu_ref(inputs[0], alpha, scale),


class TestCELU(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'alpha': 1.0}, {'shape': (2, 3), 'alpha': 2.5},
              {'shape': (), 'alpha': 0.5}, {'shape': (0, 2), 'alpha': 1.0}]

    def generate_inputs(self):
        return away_from_zero(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.celu(inputs[0], alpha=self.alpha),

    def forward_expected(self, inputs):
        return elu_ref(inputs[0], self.alpha, 1.0, 1.0 / self.alpha),


def test_elu_gradient_at_zero_is_alpha():
    # As in Chainer, x == 0 takes the exponential branch: dy/dx = alpha * exp(0).
    x = chainlet.Variable(np.array([0.0]))
    y = F.elu(x, alpha=0.5)
    y.grad = np.ones(1)
    y.backward()
    np.testing.assert_allclose(x.grad, [0.5])


def test_celu_derivative_is_continuous_at_zero():
    for alpha in (0.3, 1.0, 4.0):
        x = chainlet.Variable(np.array([-1e-9, 1e-9]))
        y = F.celu(x, alpha=alpha)
        y.grad = np.ones(2)
        y.backward()
        np.testing.assert_allclose(x.grad, [1.0, 1.0], rtol=1e-6)


def test_selu_default_constants():
    y = F.selu(np.array([-50.0, 1.0]))
    np.testing.assert_allclose(y.array, [-SELU_SCALE * SELU_ALPHA, SELU_SCALE], rtol=1e-12)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_elu_family_large_inputs_no_overflow(dtype):
    x = chainlet.Variable(np.array([-1e4, -50.0, 50.0, 1e4], dtype))
    for f in (F.elu, F.selu, F.celu):
        y = f(x)
        gx, = chainlet.grad([F.sum(y)], [x], enable_double_backprop=True)
        ggx, = chainlet.grad([F.sum(gx)], [x])
        for a in (y.array, gx.array, ggx.array):
            assert a.dtype == dtype and np.all(np.isfinite(a))


def test_elu_accurate_gradient_far_left():
    # exp(x) itself, not y + alpha, which would round to 0 long before exp(x) underflows.
    x = chainlet.Variable(np.array([-40.0]))
    F.elu(x).backward()
    np.testing.assert_allclose(x.grad, np.exp([-40.0]), rtol=1e-12)


def test_elu_rejects_bad_arguments():
    with pytest.raises(TypeError, match='elu: argument alpha: expected a real number'):
        F.elu(np.zeros(2), alpha='1')
    with pytest.raises(InvalidType, match='elu: argument x'):
        F.elu(np.zeros(2, np.int32))
    with pytest.raises(InvalidType, match='selu: argument x'):
        F.selu(np.zeros(2, np.int32))
    with pytest.raises(TypeError, match='selu: argument scale'):
        F.selu(np.zeros(2), scale=None)
    with pytest.raises(ValueError, match='celu: argument alpha: expected a positive number'):
        F.celu(np.zeros(2), alpha=0.0)
