import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def away_from_zero(shape, dtype, low=0.1, high=1.0):
    x = np.random.uniform(low, high, shape) * np.random.choice([-1.0, 1.0], shape)
    return np.asarray(x, dtype=dtype)


class TestLeakyReLU(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'slope': 0.2}, {'shape': (3, 4), 'slope': -0.3},
              {'shape': (2, 3), 'slope': 0.0}, {'shape': (2, 3), 'slope': 1.5},
              {'shape': (), 'slope': 0.2}, {'shape': (0, 2), 'slope': 0.2}]

    def generate_inputs(self):
        return away_from_zero(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.leaky_relu(inputs[0], slope=self.slope),

    def forward_expected(self, inputs):
        x, = inputs
        return np.where(x >= 0, x, x * self.slope).astype(x.dtype),


def test_leaky_relu_default_slope():
    y = F.leaky_relu(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_allclose(y.array, [-0.2, 2.0])
    assert y.dtype == np.float32


def test_leaky_relu_gradient_at_zero_is_one():
    x = chainlet.Variable(np.array([-1.0, 0.0, 2.0]))
    y = F.leaky_relu(x, slope=0.1)
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_allclose(x.grad, [0.1, 1.0, 1.0])


@pytest.mark.parametrize('slope', ['0.2', None, True, [0.2]])
def test_leaky_relu_rejects_non_real_slope(slope):
    with pytest.raises(TypeError, match='leaky_relu: argument slope: expected a real number'):
        F.leaky_relu(np.zeros(2, np.float32), slope=slope)


def test_leaky_relu_rejects_nan_slope():
    with pytest.raises(ValueError, match='leaky_relu: argument slope'):
        F.leaky_relu(np.zeros(2, np.float32), slope=float('nan'))


def test_leaky_relu_rejects_integer_input():
    with pytest.raises(InvalidType, match='leaky_relu: argument x'):
        F.leaky_relu(np.array([1, 2]))
