"""cast (an array function of the core)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase, default_tolerances


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestCast(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'to': np.float16}, {'shape': (2, 3), 'to': np.float32},
              {'shape': (2, 3), 'to': np.float64}, {'shape': (), 'to': np.float64},
              {'shape': (0, 2), 'to': np.float32}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        # When the dtype already matches, cast returns its input; scaling by one gives the
        # harness an output with a creator.
        return F.cast(inputs[0], self.to) * 1.0,

    def forward_expected(self, inputs):
        return inputs[0].astype(self.to),

    def setup(self):
        # The output dtype is fixed, so the numerical check must run in the inputs' own dtype
        # (dtype=None) rather than in float64. Cast is linear, so a wide step is exact and
        # keeps float16 rounding out of the difference quotient.
        low = min(np.dtype(self.to), np.dtype(self.dtype), key=lambda d: d.itemsize)
        for kind in ('backward', 'double_backward'):
            options = getattr(self, f'check_{kind}_options')
            options.update(default_tolerances(kind, low), dtype=None)
            if low == np.float16:
                options.update(eps=0.25, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize('src, dst', [(np.float16, np.float32), (np.float32, np.float64),
                                      (np.float64, np.float16), (np.float32, np.float16)])
def test_cast_gradient_is_cast_back(src, dst):
    x = chainlet.Variable(np.array([1.5, -2.0], src))
    y = F.cast(x, dst)
    assert y.dtype == dst
    (y * np.array([2.0, 3.0], dst)).sum().backward()
    assert x.grad.dtype == src
    np.testing.assert_array_equal(x.grad, np.array([2.0, 3.0], src))


def test_cast_same_dtype_returns_input():
    x = chainlet.Variable(np.zeros(2, np.float32))
    assert F.cast(x, np.float32) is x
    assert F.cast(x, 'float64').dtype == np.float64


def test_cast_integer_input_gets_no_gradient():
    # Chainer 7: Cast.backward returns None when the input dtype is not a float.
    xi = chainlet.Variable(np.arange(3, dtype=np.int32))
    F.cast(xi, np.float32).sum().backward()
    assert xi.grad is None
    # A float -> int -> float round trip is not differentiable either.
    x = chainlet.Variable(np.array([1.5, -2.0], np.float32))
    F.cast(F.cast(x, np.int32), np.float32).sum().backward()
    assert x.grad is None
