import math

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _reduce(loss, reduce):
    if reduce == 'sum':
        return np.asarray(loss.sum())
    if reduce == 'mean':
        return np.asarray(loss.mean())
    return loss


class TestGaussianKLDivergence(PytestFunctionTestCase):
    params = [{'shape': (3, 2), 'reduce': r} for r in ('sum', 'mean', 'no')] + \
        [{'shape': (), 'reduce': 'sum'}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        return F.gaussian_kl_divergence(*inputs, reduce=self.reduce),

    def forward_expected(self, inputs):
        m, v = (a.astype(np.float64) for a in inputs)
        loss = 0.5 * (m * m + np.exp(v) - v - 1)
        return _reduce(loss, self.reduce).astype(self.dtype),


class TestGaussianNLL(PytestFunctionTestCase):
    params = [{'shape': (3, 2), 'reduce': r} for r in ('sum', 'mean', 'no')]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=1e-2, rtol=5e-3)

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, self.shape).astype(self.dtype) for _ in range(3))

    def forward(self, inputs, device):
        return F.gaussian_nll(*inputs, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, m, v = (a.astype(np.float64) for a in inputs)
        loss = 0.5 * (math.log(2 * math.pi) + v) + (x - m) ** 2 / (2 * np.exp(v))
        return _reduce(loss, self.reduce).astype(self.dtype),


class TestBernoulliNLL(PytestFunctionTestCase):
    params = [{'shape': (3, 2), 'reduce': r} for r in ('sum', 'mean', 'no')] + \
        [{'shape': (0,), 'reduce': 'sum'}]

    def generate_inputs(self):
        return (np.random.uniform(0, 1, self.shape).astype(self.dtype),
                np.random.uniform(-2, 2, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        return F.bernoulli_nll(*inputs, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, y = (a.astype(np.float64) for a in inputs)
        p = 1 / (1 + np.exp(-y))
        loss = -(x * np.log(p) + (1 - x) * np.log(1 - p))
        return _reduce(loss, self.reduce).astype(self.dtype),


def test_bernoulli_nll_stable():
    y = chainlet.Variable(np.array([1e4, -1e4], np.float32))
    loss = F.bernoulli_nll(np.array([1.0, 1.0], np.float32), y, reduce='no')
    np.testing.assert_allclose(loss.array, [0, 1e4])
    loss.sum().backward()
    np.testing.assert_allclose(y.grad, [0, -1])


def test_broadcasting():
    mean = np.zeros((2, 3))
    ln_var = np.zeros((1, 3))
    assert F.gaussian_kl_divergence(mean, ln_var, reduce='no').shape == (2, 3)
    assert F.gaussian_nll(np.ones((2, 3)), mean, ln_var, reduce='no').shape == (2, 3)


def test_errors():
    x = np.zeros(3, np.float32)
    with pytest.raises(ValueError, match='gaussian_kl_divergence: argument reduce'):
        F.gaussian_kl_divergence(x, x, reduce='avg')
    with pytest.raises(ValueError, match='gaussian_nll: argument reduce'):
        F.gaussian_nll(x, x, x, reduce=None)
    with pytest.raises(ValueError, match='bernoulli_nll: argument reduce'):
        F.bernoulli_nll(x, x, reduce='max')
    with pytest.raises(TypeError, match='gaussian_nll: argument mean'):
        F.gaussian_nll(x, np.zeros(3), x)
    with pytest.raises(TypeError, match='bernoulli_nll: argument y'):
        F.bernoulli_nll(x, np.zeros(3, np.int32))
    with pytest.raises(TypeError, match='gaussian_kl_divergence: arguments cannot be broadcast'):
        F.gaussian_kl_divergence(x, np.zeros(2, np.float32))
