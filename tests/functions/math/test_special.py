"""SciPy-backed special functions: digamma, lgamma, polygamma, zeta, erfcx, erfinv, erfcinv,
ndtri, log_ndtr (values against SciPy, gradients, the error when SciPy is missing)."""
import sys

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

from math_cases import UnaryCase

special = pytest.importorskip('scipy.special')


class _Unary(UnaryCase):
    low, high = -2.0, 2.0

    def setup(self):
        if self.dtype == np.float16:
            # float16 steps of the input change these steep functions more than 5e-2.
            self.check_backward_options.update(dtype=np.float64)
            self.check_double_backward_options.update(dtype=np.float64)


class TestDigamma(_Unary):
    func, ref = staticmethod(F.digamma), staticmethod(special.digamma)
    low, high = 1.0, 5.0


class TestLgamma(_Unary):
    func, ref = staticmethod(F.lgamma), staticmethod(special.gammaln)
    low, high = 0.5, 5.0


class TestErfcx(_Unary):
    func, ref = staticmethod(F.erfcx), staticmethod(special.erfcx)


class TestErfinv(_Unary):
    func, ref = staticmethod(F.erfinv), staticmethod(special.erfinv)
    low, high = -0.9, 0.9


class TestErfcinv(_Unary):
    func, ref = staticmethod(F.erfcinv), staticmethod(special.erfcinv)
    low, high = 0.1, 1.9


class TestNdtri(_Unary):
    func, ref = staticmethod(F.ndtri), staticmethod(special.ndtri)
    low, high = 0.1, 0.9


class TestLogNdtr(_Unary):
    func, ref = staticmethod(F.log_ndtr), staticmethod(special.log_ndtr)
    low, high = -5.0, 3.0


class _Binary(PytestFunctionTestCase):
    """Two-input functions differentiable in the second; gradients are checked in float64."""

    def setup(self):
        self.check_backward_options.update(dtype=np.float64)
        self.check_double_backward_options.update(dtype=np.float64)


class TestPolygamma(_Binary):
    params = [{'shape': (3, 2), 'n': 0}, {'shape': (3, 2), 'n': 2}, {'shape': (), 'n': 1}]

    def generate_inputs(self):
        return np.random.uniform(1.0, 4.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.polygamma(device.send(np.array(self.n)), inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(special.polygamma(self.n, x.astype(np.float64))).astype(x.dtype),


class TestZeta(_Binary):
    params = [{'shape': (3, 2)}, {'shape': ()}]

    def setup(self):
        super().setup()
        self.order = np.random.uniform(2.0, 4.0, self.shape)

    def generate_inputs(self):
        return np.random.uniform(1.1, 3.0, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        q, = inputs
        return F.zeta(device.send(self.order.astype(q.dtype)), q),

    def forward_expected(self, inputs):
        q, = inputs
        return np.asarray(special.zeta(self.order.astype(q.dtype).astype(np.float64),
                                       q.astype(np.float64))).astype(q.dtype),


def test_digamma_gradient_is_trigamma():
    x = chainlet.Variable(np.array([1.0, 2.5]))
    F.sum(F.digamma(x)).backward()
    np.testing.assert_allclose(x.grad, special.polygamma(1, x.array))


def test_zeta_gradient_in_order_raises():
    x = chainlet.Variable(np.array([2.0, 3.0]))
    q = chainlet.Variable(np.array([1.5, 2.0]))
    y = F.sum(F.zeta(x, q))
    with pytest.raises(RuntimeError, match='zeta: no gradient with respect to x'):
        y.backward()


def test_log_ndtr_far_left_tail():
    x = np.array([-40.0, -10.0, 0.0, 5.0])
    np.testing.assert_allclose(F.log_ndtr(x).array, special.log_ndtr(x), rtol=1e-12)
    g = chainlet.Variable(x)
    F.sum(F.log_ndtr(g)).backward()
    # d/dx log Phi(x) = phi(x) / Phi(x), about -x far left.
    np.testing.assert_allclose(g.grad[:2], [40.02496, 10.09809], rtol=1e-5)


def test_float16_in_float16_out():
    y = F.digamma(np.array([1.0, 2.0], np.float16))
    assert y.dtype == np.float16


@pytest.mark.parametrize('func', [F.digamma, F.lgamma, F.erfcx, F.erfinv, F.erfcinv, F.ndtri,
                                  F.log_ndtr])
def test_integer_input_is_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x'):
        func(np.arange(3))


def test_polygamma_rejects_float_order():
    with pytest.raises(TypeError, match='polygamma: argument n'):
        F.polygamma(np.array(1.0), np.array([1.0]))


@pytest.mark.parametrize('call', [lambda: F.digamma(np.ones(2)),
                                  lambda: F.polygamma(np.array(1), np.ones(2)),
                                  lambda: F.zeta(np.ones(2) * 2, np.ones(2)),
                                  lambda: F.log_ndtr(np.ones(2))])
def test_missing_scipy_raises_import_error_naming_the_extra(monkeypatch, call):
    monkeypatch.setitem(sys.modules, 'scipy', None)
    with pytest.raises(ImportError, match=r'chainlet-dl\[special\]'):
        call()
