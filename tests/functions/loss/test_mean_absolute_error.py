import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestMeanAbsoluteError(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (2, 1, 3)}]

    def generate_inputs(self):
        x0 = np.random.uniform(-1, 1, self.shape)
        # Keep |x0 - x1| > 0.1 away from the kink of |.|.
        d = np.random.uniform(0.1, 1, self.shape) * np.random.choice([-1, 1], self.shape)
        return np.asarray(x0, self.dtype), np.asarray(x0 + d, self.dtype)

    def forward(self, inputs, device):
        return F.mean_absolute_error(*inputs),

    def forward_expected(self, inputs):
        x0, x1 = (a.astype(np.float64) for a in inputs)
        return np.asarray(np.abs(x0 - x1).mean(), self.dtype),


def test_empty_is_nan():
    y = F.mean_absolute_error(np.zeros((0,), np.float64), np.zeros((0,), np.float64))
    assert np.isnan(y.array)


def test_errors():
    with pytest.raises(TypeError, match='mean_absolute_error: argument x1: expected shape'):
        F.mean_absolute_error(np.zeros((2, 3)), np.zeros((3, 2)))
