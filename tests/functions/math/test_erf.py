"""erf: values against math.erf, gradient, special values; the erfc/ndtr array helpers."""
import math

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.functions.math.erf import erf_array, erfc_array, ndtr_array
from math_cases import UnaryCase

_erf64 = np.vectorize(math.erf, otypes=[np.float64])


class TestErf(UnaryCase):
    func, ref = staticmethod(F.erf), staticmethod(_erf64)
    low, high = -2.5, 2.5


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


# erfc and the normal CDF Phi at exact float64 points, from mpmath with 50 digits.
_ERFC_REF = [(0.1, 0.887537083981715), (1.0, 0.15729920705028513),
             (3.5, 7.430983723414128e-07), (6.0, 2.1519736712498913e-17),
             (12.0, 1.3562611692059042e-64), (26.0, 5.663192408856143e-296)]
_NDTR_REF = [(-30.5, 1.3029379131780763e-204), (-20.0, 2.7536241186062337e-89),
             (-12.25, 8.399796063633417e-35), (-7.0, 1.279812543885835e-12),
             (-3.0, 0.0013498980316300946), (-0.5, 0.3085375387259869),
             (0.25, 0.5987063256829237), (2.0, 0.9772498680518208), (9.0, 1.0)]


def test_erfc_array_relative_accuracy_in_both_directions():
    x, ref = np.array(_ERFC_REF).T
    np.testing.assert_allclose(erfc_array(x), ref, rtol=4e-16, atol=0)
    np.testing.assert_allclose(erfc_array(-x), 2.0 - ref, rtol=4e-16, atol=0)
    x = np.linspace(-7, 7, 1401)
    np.testing.assert_allclose(erfc_array(x), [math.erfc(v) for v in x], rtol=1e-14, atol=0)
    np.testing.assert_allclose(erfc_array(x[x < 5.9]), 1.0 - F.erf(x[x < 5.9]).array,
                               rtol=0, atol=3e-16)


def test_ndtr_array_left_tail_keeps_full_precision():
    # exp(-x^2 / 2) is formed from x itself, so even the far left tail is accurate to a few ulps.
    x, ref = np.array(_NDTR_REF).T
    np.testing.assert_allclose(ndtr_array(x), ref, rtol=1e-15, atol=0)
    np.testing.assert_array_equal(ndtr_array(np.array([-40.0, 40.0])), [0.0, 1.0])


@pytest.mark.parametrize('dtype', [np.float16, np.float32])
def test_erfc_ndtr_low_precision(dtype):
    x = np.linspace(-9, 9, 181).astype(dtype)
    xd = x.astype(np.float64)
    eps = np.finfo(dtype).eps
    e, p = erfc_array(x), ndtr_array(x)
    assert e.dtype == p.dtype == dtype
    np.testing.assert_allclose(e.astype(np.float64), [math.erfc(v) for v in xd], rtol=4 * eps,
                               atol=np.finfo(dtype).tiny)
    np.testing.assert_allclose(p.astype(np.float64), [0.5 * math.erfc(-v / math.sqrt(2))
                                                      for v in xd],
                               rtol=4 * eps, atol=np.finfo(dtype).tiny)


def test_erf_helpers_keep_shape_and_nan():
    for f in (erf_array, erfc_array, ndtr_array):
        y = f(np.array(0.75))
        assert isinstance(y, np.ndarray) and y.shape == ()
        assert f(np.zeros((0, 3), np.float32)).shape == (0, 3)
        y = f(np.array([[np.nan, 1.0], [-np.inf, np.inf]]))
        assert y.shape == (2, 2) and np.isnan(y[0, 0]) and not np.isnan(y[1:]).any()
