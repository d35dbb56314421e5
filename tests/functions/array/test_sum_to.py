"""sum_to (an array function of the core)."""
import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestSumTo(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'out': (1, 3)}, {'shape': (2, 3), 'out': (3,)},
              {'shape': (2, 3, 4), 'out': (3, 1)}, {'shape': (2, 3), 'out': ()},
              {'shape': (0, 3), 'out': (3,)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.sum_to(inputs[0], self.out),

    def forward_expected(self, inputs):
        x = inputs[0]
        lead = x.ndim - len(self.out)
        y = x.sum(axis=tuple(range(lead)))
        axes = tuple(i for i, s in enumerate(self.out) if s == 1 and y.shape[i] != 1)
        return np.asarray(y.sum(axis=axes, keepdims=True), dtype=x.dtype).reshape(self.out),

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)


def test_sum_to_errors():
    with pytest.raises(ValueError, match=r'sum_to: argument shape: cannot sum an array of shape '
                                         r'\(2, 3\) to shape \(2,\)'):
        F.sum_to(np.zeros((2, 3)), (2,))
