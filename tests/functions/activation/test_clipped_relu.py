import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def away_from(points, shape, dtype, low, high, gap=0.1):
    x = np.random.uniform(low, high, shape)
    for p in points:
        close = np.abs(x - p) < gap
        x = np.where(close, p + gap * np.sign(x - p + 1e-12) * 1.5, x)
    return np.asarray(x, dtype)


class TestClippedReLU(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'z': 0.75}, {'shape': (3, 4), 'z': 20.0},
              {'shape': (), 'z': 0.75}, {'shape': (0, 2), 'z': 20.0}]

    def generate_inputs(self):
        return away_from((0.0, self.z), self.shape, self.dtype, -1.5, 1.5),

    def forward(self, inputs, device):
        return F.clipped_relu(inputs[0], z=self.z),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.clip(x, 0, self.z), x.dtype),


class TestReLU6(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return away_from((0.0, 6.0), self.shape, self.dtype, -3.0, 9.0),

    def forward(self, inputs, device):
        return F.relu6(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.clip(x, 0, 6), x.dtype),


def test_clipped_relu_default_and_boundaries():
    x = chainlet.Variable(np.array([-1.0, 0.0, 5.0, 20.0, 30.0], np.float32))
    y = F.clipped_relu(x)
    np.testing.assert_array_equal(y.array, [0.0, 0.0, 5.0, 20.0, 20.0])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 1.0, 0.0, 0.0])


def test_relu6_matches_chainer_example():
    x = np.array([-20, -2, 0, 2, 4, 10, 100], np.float32)
    np.testing.assert_array_equal(F.relu6(x).array, [0, 0, 0, 2, 4, 6, 6])


def test_clipped_relu_accepts_int_z():
    np.testing.assert_array_equal(F.clipped_relu(np.array([3.0, 9.0]), z=5).array, [3.0, 5.0])


def test_clipped_relu_rejects_bad_arguments():
    with pytest.raises(ValueError, match='clipped_relu: argument z: expected a positive'):
        F.clipped_relu(np.zeros(2), z=-1.0)
    with pytest.raises(TypeError, match='clipped_relu: argument z: expected a real number'):
        F.clipped_relu(np.zeros(2), z='6')
    with pytest.raises(InvalidType, match='clipped_relu: argument x'):
        F.clipped_relu(np.zeros(2, np.int32))
    with pytest.raises(InvalidType, match='relu6: argument x'):
        F.relu6(np.zeros(2, np.int32))
