import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestLayerNormalization(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'eps': 1e-5}, {'shape': (1, 5), 'eps': 0.1},
              {'shape': (0, 3), 'eps': 1e-5}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        n = self.shape[1]
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(0.5, 1.5, n).astype(self.dtype),
                np.random.uniform(-1, 1, n).astype(self.dtype))

    def forward(self, inputs, device):
        return F.layer_normalization(*inputs, eps=self.eps),

    def forward_expected(self, inputs):
        x, gamma, beta = [a.astype(np.float64) for a in inputs]
        if x.size:
            mean = x.mean(axis=1, keepdims=True)
            var = x.var(axis=1, keepdims=True)
        else:
            mean = var = 0
        y = (x - mean) / np.sqrt(var + self.eps) * gamma + beta
        return y.astype(self.dtype),


def test_each_sample_independent_of_batch():
    x = np.random.uniform(-1, 1, (4, 5)).astype(np.float32)
    gamma, beta = np.ones(5, np.float32), np.zeros(5, np.float32)
    full = F.layer_normalization(x, gamma, beta).array
    one = F.layer_normalization(x[2:3], gamma, beta).array
    np.testing.assert_allclose(full[2:3], one, rtol=1e-6)


def test_stable_for_large_inputs():
    x = np.array([[1e4, 1e4 + 1, 1e4 + 2]], np.float32)
    y = F.layer_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32))
    np.testing.assert_allclose(y.array, [[-1.2247, 0.0, 1.2247]], atol=1e-3)


def test_bad_arguments():
    x = np.zeros((2, 3), np.float32)
    one, zero = np.ones(3, np.float32), np.zeros(3, np.float32)
    with pytest.raises(InvalidType, match='layer_normalization: argument x: expected ndim 2'):
        F.layer_normalization(np.zeros((2, 3, 1), np.float32), one, zero)
    with pytest.raises(InvalidType, match=r'argument gamma: expected shape \(3,\), got \(4,\)'):
        F.layer_normalization(x, np.ones(4, np.float32), zero)
    with pytest.raises(InvalidType, match=r'argument beta: expected shape \(3,\)'):
        F.layer_normalization(x, one, np.zeros((1, 3), np.float32))
    with pytest.raises(InvalidType, match='argument gamma: expected dtype float32'):
        F.layer_normalization(x, np.ones(3), zero)
