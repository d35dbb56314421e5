"""absolute."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestAbsolute(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 2)}]
    skip_double_backward_test = False

    def generate_inputs(self):
        x = np.random.uniform(0.1, 1, self.shape) * np.random.choice([-1, 1], self.shape)
        return np.asarray(x, self.dtype),

    def forward(self, inputs, device):
        return F.absolute(inputs[0]),

    def forward_expected(self, inputs):
        return np.abs(inputs[0]),


def test_abs_operator_and_gradient_at_zero():
    x = chainlet.Variable(np.array([-2.0, 0.0, 3.0]))
    y = abs(x)
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_array_equal(y.array, [2.0, 0.0, 3.0])
    np.testing.assert_array_equal(x.grad, [-1.0, 0.0, 1.0])


def test_absolute_rejects_integers():
    with pytest.raises(TypeError, match='absolute: argument x'):
        F.absolute(np.arange(3))
