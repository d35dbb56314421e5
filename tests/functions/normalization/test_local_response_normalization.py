import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _reference(x, n, k, alpha, beta):
    x = x.astype(np.float64)
    c = x.shape[1]
    y = np.empty_like(x)
    half = n // 2
    for i in range(c):
        lo, hi = max(0, i - half), min(c, i + half + 1)
        s = (x[:, lo:hi] ** 2).sum(axis=1)
        y[:, i] = x[:, i] * (k + alpha * s) ** -beta
    return y


class TestLocalResponseNormalization(PytestFunctionTestCase):
    params = [
        {'shape': (2, 7, 3), 'n': 5, 'k': 2, 'alpha': 1e-4, 'beta': 0.75},
        {'shape': (2, 4), 'n': 3, 'k': 1, 'alpha': 0.5, 'beta': 0.6},
        {'shape': (1, 3, 2, 2), 'n': 4, 'k': 1, 'alpha': 0.3, 'beta': 1.5},
        {'shape': (2, 2), 'n': 9, 'k': 2, 'alpha': 0.5, 'beta': 0.75},
        {'shape': (0, 3), 'n': 5, 'k': 2, 'alpha': 1e-4, 'beta': 0.75},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.local_response_normalization(inputs[0], self.n, self.k, self.alpha,
                                              self.beta),

    def forward_expected(self, inputs):
        return _reference(inputs[0], self.n, self.k, self.alpha, self.beta).astype(
            self.dtype),


def test_float16_large_values_do_not_overflow():
    x = np.full((1, 5), 300.0, np.float16)  # x ** 2 overflows in float16
    y = F.local_response_normalization(x)
    np.testing.assert_allclose(y.array.astype(np.float64),
                               _reference(x, 5, 2, 1e-4, 0.75), rtol=2e-3)


def test_bad_arguments():
    with pytest.raises(InvalidType, match='local_response_normalization: argument x: expected '
                                          'ndim >= 2'):
        F.local_response_normalization(np.zeros(3))
    with pytest.raises(ValueError, match='local_response_normalization: argument n'):
        F.local_response_normalization(np.zeros((1, 3)), n=0)
    with pytest.raises(TypeError, match='argument n: expected an int'):
        F.local_response_normalization(np.zeros((1, 3)), n=2.5)
