import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def sigmoid64(z):
    return 0.5 * np.tanh(0.5 * z) + 0.5


class TestSwish(PytestFunctionTestCase):
    params = [{'x_shape': (2, 3, 4), 'beta_shape': (3,)},
              {'x_shape': (2, 3, 4), 'beta_shape': (3, 4)},
              {'x_shape': (2, 3), 'beta_shape': ()},
              {'x_shape': (3,), 'beta_shape': ()},
              {'x_shape': (0, 3), 'beta_shape': (3,)}]

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.x_shape)
        beta = np.random.uniform(-1, 2, self.beta_shape)
        return np.asarray(x, self.dtype), np.asarray(beta, self.dtype)

    def forward(self, inputs, device):
        return F.swish(*inputs),

    def forward_expected(self, inputs):
        x, beta = inputs
        b = beta.reshape((1,) + beta.shape + (1,) * (x.ndim - beta.ndim - 1))
        xd = x.astype(np.float64)
        return np.asarray(xd * sigmoid64(b * xd), x.dtype),


class TestSiLU(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return np.asarray(np.random.uniform(-3, 3, self.shape), self.dtype),

    def forward(self, inputs, device):
        return F.silu(inputs[0]),

    def forward_expected(self, inputs):
        xd = inputs[0].astype(np.float64)
        return np.asarray(xd * sigmoid64(xd), inputs[0].dtype),


def test_swish_limits():
    x = np.array([[-2.0, -0.5, 0.5, 3.0]])
    np.testing.assert_allclose(F.swish(x, np.array(0.0)).array, x / 2)
    np.testing.assert_allclose(F.swish(x, np.array(1e4)).array, np.maximum(x, 0))


def test_swish_with_beta_one_is_silu():
    x = np.random.uniform(-3, 3, (2, 5))
    np.testing.assert_allclose(F.swish(x, np.ones(5)).array, F.silu(x).array, rtol=1e-12)


def test_swish_and_silu_large_inputs():
    x = chainlet.Variable(np.array([[-1e4, 1e4]], np.float32))
    beta = chainlet.Variable(np.array([1.0, 2.0], np.float32))
    for y in (F.swish(x, beta), F.silu(x)):
        np.testing.assert_allclose(y.array, [[0.0, 1e4]])
        gx, = chainlet.grad([F.sum(y)], [x])
        np.testing.assert_allclose(gx.array, [[0.0, 1.0]])


def test_swish_rejects_bad_arguments():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match='swish: argument beta: expected shape'):
        F.swish(x, np.zeros(4, np.float32))
    with pytest.raises(InvalidType, match='swish: argument beta'):
        F.swish(x, np.zeros((2, 3), np.float32))
    with pytest.raises(InvalidType, match='swish: argument beta: expected dtype float32'):
        F.swish(x, np.zeros(3, np.float64))
    with pytest.raises(InvalidType, match='swish: argument x: expected ndim >= 1'):
        F.swish(np.zeros((), np.float32), np.zeros((), np.float32))
    with pytest.raises(InvalidType, match='silu: argument x'):
        F.silu(np.zeros(2, np.int32))
