import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestMeanSquaredError(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (2, 1, 3)}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        return F.mean_squared_error(*inputs),

    def forward_expected(self, inputs):
        x0, x1 = (a.astype(np.float64) for a in inputs)
        return np.asarray(((x0 - x1) ** 2).mean(), self.dtype),


def test_empty_is_nan():
    y = F.mean_squared_error(np.zeros((0, 2), np.float32), np.zeros((0, 2), np.float32))
    assert y.dtype == np.float32 and np.isnan(y.array)


def test_errors():
    with pytest.raises(TypeError, match='mean_squared_error: argument x1: expected shape'):
        F.mean_squared_error(np.zeros(3, np.float32), np.zeros(2, np.float32))
    with pytest.raises(TypeError, match='mean_squared_error: argument x1: expected dtype'):
        F.mean_squared_error(np.zeros(3, np.float32), np.zeros(3, np.float64))
    with pytest.raises(TypeError, match='mean_squared_error: argument x0'):
        F.mean_squared_error(np.zeros(3, np.int32), np.zeros(3, np.int32))
