"""erf: values against math.erf, gradient, special values."""
import math

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import FunctionTestCase

_erf64 = np.vectorize(math.erf, otypes=[np.float64])


class TestErf(FunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 3)}]

    def generate_inputs(self):
        return np.random.uniform(-2.5, 2.5, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.erf(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return _erf64(x.astype(np.float64)).astype(x.dtype).reshape(x.shape),


def test_erf_matches_math_erf_over_all_ranges():
    # Covers the three ranges of the approximation (|x| <= 0.46875, <= 4, > 4) and the tails.
    x = np.concatenate([np.linspace(-7, 7, 2801), [0.46875, -0.46875, 4.0, 1e-8, 30.0]])
    y = F.erf(x).array
    np.testing.assert_allclose(y, _erf64(x), rtol=1e-14, atol=1e-16)


@pytest.mark.parametrize('dtype', [np.float16, np.float32])
def test_erf_low_precision(dtype):
    x = np.linspace(-5, 5, 101).astype(dtype)
    y = F.erf(x).array
    assert y.dtype == dtype
    eps = np.finfo(dtype).eps
    np.testing.assert_allclose(y.astype(np.float64), _erf64(x.astype(np.float64)),
                               atol=2 * eps)


def test_erf_special_values():
    y = F.erf(np.array([np.inf, -np.inf, np.nan, 0.0, -0.0])).array
    np.testing.assert_array_equal(y[:2], [1.0, -1.0])
    assert np.isnan(y[2])
    assert y[3] == 0.0


def test_erf_gradient():
    x = chainlet.Variable(np.array([-1.0, 0.0, 0.7]))
    y = F.erf(x)
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_allclose(x.grad, 2 / np.sqrt(np.pi) * np.exp(-x.array ** 2))


def test_erf_rejects_integers():
    with pytest.raises(TypeError, match='erf: argument x'):
        F.erf(np.arange(3))
