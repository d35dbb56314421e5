"""clip."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestClip(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'x_min': -0.5, 'x_max': 0.5},
              {'shape': (3, 4), 'x_min': None, 'x_max': 0.25},
              {'shape': (3, 4), 'x_min': -0.25, 'x_max': None},
              {'shape': (), 'x_min': -0.5, 'x_max': 0.5},
              {'shape': (0, 2), 'x_min': -0.5, 'x_max': 0.5}]

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape)
        # Move values away from the bounds, where the function has kinks.
        for b in (self.x_min, self.x_max):
            if b is not None:
                near = np.abs(x - b) < 0.05
                x = np.where(near, x + 0.1, x)
        return np.asarray(x, self.dtype),

    def forward(self, inputs, device):
        return F.clip(inputs[0], self.x_min, self.x_max),

    def forward_expected(self, inputs):
        x, = inputs
        lo = -np.inf if self.x_min is None else self.x_min
        hi = np.inf if self.x_max is None else self.x_max
        return np.asarray(np.clip(x.astype(np.float64), lo, hi), self.dtype),


def test_gradient_counts_both_edges():
    x = chainlet.Variable(np.array([-2.0, -1.0, 0.0, 1.0, 2.0], np.float32))
    y = F.clip(x, -1.0, 1.0)
    y.grad = np.ones(5, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [0, 1, 1, 1, 0])
    assert x.grad.dtype == np.float32


def test_integer_bounds_keep_the_dtype():
    y = F.clip(np.array([-3.0, 3.0], np.float16), -1, 2)
    assert y.dtype == np.float16
    np.testing.assert_array_equal(y.array, [-1, 2])


def test_bad_arguments():
    with pytest.raises(ValueError, match='clip: arguments x_min and x_max: expected x_min < '
                                         'x_max'):
        F.clip(np.ones(2), 1.0, 1.0)
    with pytest.raises(ValueError, match='clip: arguments x_min and x_max: expected at least'):
        F.clip(np.ones(2), None, None)
    with pytest.raises(TypeError, match='clip: argument x_min: expected a real number'):
        F.clip(np.ones(2), 'a', 1.0)
    with pytest.raises(TypeError, match='clip: argument x: expected a floating-point'):
        F.clip(np.arange(2), 0, 1)
