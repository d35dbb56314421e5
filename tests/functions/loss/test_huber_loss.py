import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _huber(d, delta):
    a = np.abs(d)
    return np.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))


class TestHuberLoss(PytestFunctionTestCase):
    params = [
        {'shape': (4, 3), 'delta': 1.0, 'reduce': 'sum_along_second_axis'},
        {'shape': (2, 3, 2), 'delta': 0.5, 'reduce': 'sum_along_second_axis'},
        {'shape': (4, 3), 'delta': 1.0, 'reduce': 'no'},
        {'shape': (), 'delta': 1.0, 'reduce': 'no'},
        {'shape': (0, 3), 'delta': 1.0, 'reduce': 'sum_along_second_axis'},
    ]

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape)
        d = np.random.uniform(-2, 2, self.shape)
        # Stay away from |d| == delta, where the second derivative jumps.
        d = np.where(np.abs(np.abs(d) - self.delta) < 0.1, d * 0.5, d)
        return np.asarray(x, self.dtype), np.asarray(x + d, self.dtype)

    def forward(self, inputs, device):
        return F.huber_loss(inputs[0], inputs[1], self.delta, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = (a.astype(np.float64) for a in inputs)
        y = _huber(x - t, self.delta)
        if self.reduce == 'sum_along_second_axis':
            y = y.sum(axis=1)
        return np.asarray(y, self.dtype),


def test_values():
    x = np.array([[0.5, 3.0], [-0.2, -2.0]])
    y = F.huber_loss(x, np.zeros_like(x), delta=1.0, reduce='no')
    np.testing.assert_allclose(y.array, [[0.125, 2.5], [0.02, 1.5]])


def test_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match='huber_loss: argument reduce'):
        F.huber_loss(x, x, 1.0, reduce='mean')
    with pytest.raises(ValueError, match='huber_loss: argument delta'):
        F.huber_loss(x, x, 0.0)
    with pytest.raises(TypeError, match='huber_loss: argument delta'):
        F.huber_loss(x, x, 'one')
    with pytest.raises(TypeError, match='huber_loss: argument t: expected shape'):
        F.huber_loss(x, np.zeros((3, 2), np.float32), 1.0)
    with pytest.raises(TypeError, match='huber_loss: argument x: expected ndim >= 2'):
        F.huber_loss(np.zeros(3, np.float32), np.zeros(3, np.float32), 1.0)
