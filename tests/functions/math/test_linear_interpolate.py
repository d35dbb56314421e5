"""linear_interpolate."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestLinearInterpolate(PytestFunctionTestCase):
    params = [{'shapes': ((3, 2), (3, 2), (3, 2))},
              {'shapes': ((3, 1), (3, 2), (2,))},
              {'shapes': ((), (), ())},
              {'shapes': ((0, 2), (0, 2), (0, 2))}]

    def generate_inputs(self):
        p = np.random.uniform(0, 1, self.shapes[0]).astype(self.dtype)
        x = np.random.uniform(-1, 1, self.shapes[1]).astype(self.dtype)
        y = np.random.uniform(-1, 1, self.shapes[2]).astype(self.dtype)
        return p, x, y

    def forward(self, inputs, device):
        return F.linear_interpolate(*inputs),

    def forward_expected(self, inputs):
        p, x, y = (a.astype(np.float64) for a in inputs)
        return np.asarray(p * x + (1 - p) * y, self.dtype),


def test_gradients():
    p = chainlet.Variable(np.array([0.25]))
    x = chainlet.Variable(np.array([4.0]))
    y = chainlet.Variable(np.array([2.0]))
    z = F.linear_interpolate(p, x, y)
    F.sum(z).backward()
    np.testing.assert_allclose([p.grad[0], x.grad[0], y.grad[0]], [2.0, 0.25, 0.75])


def test_bad_arguments():
    with pytest.raises(TypeError, match='linear_interpolate: argument x: expected dtype'):
        F.linear_interpolate(np.ones(2), np.ones(2, np.float32), np.ones(2))
    with pytest.raises(TypeError, match='linear_interpolate: arguments cannot be broadcast'):
        F.linear_interpolate(np.ones(2), np.ones(3), np.ones(2))
