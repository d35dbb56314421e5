import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def away_from_zero(shape, dtype, low=0.1, high=1.0):
    """Values with low <= |x| <= high and random signs (no kink inside the gradient check)."""
    x = np.random.uniform(low, high, shape) * np.random.choice([-1.0, 1.0], shape)
    return np.asarray(x, dtype=dtype)


class TestReLU(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return away_from_zero(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.relu(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.maximum(x, 0).astype(x.dtype),


def test_relu_gradient_at_zero_is_zero():
    x = chainlet.Variable(np.array([-1.0, 0.0, 2.0], np.float32))
    y = F.relu(x)
    y.grad = np.ones(3, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 1.0])


def test_relu_second_derivative_is_zero():
    x = chainlet.Variable(np.array([-1.0, 0.5, 2.0]))
    gx, = chainlet.grad([F.sum(F.relu(x) * x)], [x], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, [0.0, 1.0, 4.0])
    ggx, = chainlet.grad([F.sum(gx)], [x])
    # d/dx of (relu'(x) x + relu(x)) is 2 relu'(x): only the relu(x) and x factors contribute.
    np.testing.assert_allclose(ggx.array, [0.0, 2.0, 2.0])


def test_relu_keeps_dtype_of_0d():
    y = F.relu(np.array(-3.0, np.float16))
    assert y.dtype == np.float16 and y.shape == ()


def test_relu_rejects_integer_input():
    with pytest.raises(InvalidType, match='relu: argument x: expected a floating-point'):
        F.relu(np.array([1, 2]))
