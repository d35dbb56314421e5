import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestCReLU(PytestFunctionTestCase):
    params = [{'shape': (5, 4), 'axis': 1}, {'shape': (5, 4), 'axis': 0},
              {'shape': (5, 4, 3), 'axis': -1}, {'shape': (2, 3, 2), 'axis': -3},
              {'shape': (0, 3), 'axis': 1}, {'shape': (4,), 'axis': 0}]

    def generate_inputs(self):
        x = np.random.uniform(0.1, 1, self.shape) * np.random.choice([-1, 1], self.shape)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        return F.crelu(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        x, = inputs
        return np.concatenate([np.maximum(x, 0), np.maximum(-x, 0)], axis=self.axis),


def test_crelu_gradient_splits_halves():
    x = chainlet.Variable(np.array([[-2.0, 3.0]]))
    y = F.crelu(x, axis=1)
    y.grad = np.array([[1.0, 2.0, 10.0, 20.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[-10.0, 2.0]])


def test_crelu_rejects_bad_axis_and_dtype():
    with pytest.raises(TypeError, match='crelu: argument axis'):
        F.crelu(np.zeros((2, 2), np.float32), axis=1.0)
    with pytest.raises(InvalidType, match='crelu: argument x'):
        F.crelu(np.zeros((2, 2), np.float32), axis=2)
    with pytest.raises(InvalidType, match='crelu: argument x'):
        F.crelu(np.zeros((2, 2), np.int32))
