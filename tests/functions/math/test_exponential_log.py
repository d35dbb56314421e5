"""exp, log, log1p, expm1, log2, log10."""
import math

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class _Unary(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 3)}]
    low, high = -1.0, 1.0

    def generate_inputs(self):
        return np.random.uniform(self.low, self.high, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return type(self).func(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(type(self).ref(x.astype(np.float64))).astype(x.dtype),


class TestExp(_Unary):
    func = staticmethod(F.exp)
    ref = staticmethod(np.exp)


class TestLog(_Unary):
    func = staticmethod(F.log)
    ref = staticmethod(np.log)
    low, high = 0.5, 2.0


class TestLog1p(_Unary):
    func = staticmethod(F.log1p)
    ref = staticmethod(np.log1p)
    low, high = -0.5, 2.0


class TestExpm1(_Unary):
    func = staticmethod(F.expm1)
    ref = staticmethod(np.expm1)


class TestLog2(_Unary):
    func = staticmethod(F.log2)
    ref = staticmethod(np.log2)
    low, high = 0.5, 2.0


class TestLog10(_Unary):
    func = staticmethod(F.log10)
    ref = staticmethod(np.log10)
    low, high = 0.5, 2.0


@pytest.mark.parametrize('func', [F.exp, F.log, F.log1p, F.expm1, F.log2, F.log10])
def test_integer_input_is_rejected(func):
    name = func.__name__
    with pytest.raises(TypeError, match=f'{name}: argument x: expected a floating-point'):
        func(np.arange(3))


def test_log1p_and_expm1_are_accurate_near_zero():
    x = np.array([1e-12, -1e-12], np.float64)
    np.testing.assert_allclose(F.log1p(x).array, x, rtol=1e-12)
    np.testing.assert_allclose(F.expm1(x).array, x, rtol=1e-12)


def test_log2_log10_gradients_keep_float32():
    x = chainlet.Variable(np.array([2.0, 10.0], np.float32))
    y = F.log2(x) + F.log10(x)
    y.grad = np.ones(2, np.float32)
    y.backward()
    assert x.grad.dtype == np.float32
    expected = 1 / (x.array * math.log(2)) + 1 / (x.array * math.log(10))
    np.testing.assert_allclose(x.grad, expected, rtol=1e-6)
