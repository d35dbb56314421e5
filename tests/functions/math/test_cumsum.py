"""cumsum."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestCumsum(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'axis': None},
              {'shape': (3, 4), 'axis': 1},
              {'shape': (2, 3, 2), 'axis': -2},
              {'shape': (5,), 'axis': 0},
              {'shape': (), 'axis': None},
              {'shape': (0, 3), 'axis': 0},
              {'shape': (0, 3), 'axis': None}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def forward(self, inputs, device):
        return F.cumsum(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        return np.cumsum(x.astype(np.float64), axis=self.axis).astype(self.dtype),


def test_gradient_is_reverse_cumsum():
    x = chainlet.Variable(np.zeros((2, 3)))
    y = F.cumsum(x, axis=1)
    y.grad = np.array([[1.0, 2.0, 3.0], [0.0, 0.0, 1.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[6, 5, 3], [1, 1, 1]])


def test_bad_arguments():
    with pytest.raises(TypeError, match=r'cumsum: argument axis: expected an axis in \[-2, 2\)'):
        F.cumsum(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match='cumsum: argument axis: expected None or an int'):
        F.cumsum(np.ones((2, 3)), axis=(0, 1))
    with pytest.raises(TypeError, match='cumsum: argument x'):
        F.cumsum(np.arange(3))
