"""exp, log, log1p, expm1, log2, log10."""
import math

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from math_cases import UnaryCase


class TestExp(UnaryCase):
    func = staticmethod(F.exp)
    ref = staticmethod(np.exp)


class TestLog(UnaryCase):
    func = staticmethod(F.log)
    ref = staticmethod(np.log)
    low, high = 0.5, 2.0


class TestLog1p(UnaryCase):
    func = staticmethod(F.log1p)
    ref = staticmethod(np.log1p)
    low, high = -0.5, 2.0


class TestExpm1(UnaryCase):
    func = staticmethod(F.expm1)
    ref = staticmethod(np.expm1)


class TestLog2(UnaryCase):
    func = staticmethod(F.log2)
    ref = staticmethod(np.log2)
    low, high = 0.5, 2.0


class TestLog10(UnaryCase):
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
