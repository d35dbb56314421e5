import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _cov(a, b):
    a = a.astype(np.float64) - a.mean(axis=0)
    b = b.astype(np.float64) - b.mean(axis=0)
    return np.einsum('ni,nj->ij', a, b) / len(a)


class TestCrossCovariance(PytestFunctionTestCase):
    params = [{'reduce': 'half_squared_sum', 'n': 4}, {'reduce': 'no', 'n': 4},
              {'reduce': 'no', 'n': 1}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_backward_options = {'atol': 3e-2, 'rtol': 3e-2}
            self.check_double_backward_options = {'atol': 2e-1, 'rtol': 2e-1}

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (self.n, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, (self.n, 2)).astype(self.dtype))

    def forward(self, inputs, device):
        return F.cross_covariance(*inputs, reduce=self.reduce),

    def forward_expected(self, inputs):
        C = _cov(*inputs)
        out = C if self.reduce == 'no' else 0.5 * (C ** 2).sum()
        return np.asarray(out, self.dtype),


class TestDeCov(PytestFunctionTestCase):
    params = [{'reduce': 'half_squared_sum'}, {'reduce': 'no'}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 3e-2, 'rtol': 3e-2}
            self.check_double_backward_options = {'atol': 2e-1, 'rtol': 2e-1}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.decov(inputs[0], reduce=self.reduce),

    def forward_expected(self, inputs):
        C = _cov(inputs[0], inputs[0])
        np.fill_diagonal(C, 0)
        out = C if self.reduce == 'no' else 0.5 * (C ** 2).sum()
        return np.asarray(out, self.dtype),


@pytest.mark.parametrize('func, args', [
    (F.cross_covariance, (np.zeros((2, 3)), np.zeros((2, 2)))),
    (F.decov, (np.zeros((2, 3)),))])
def test_unknown_reduce_is_a_value_error(func, args):
    with pytest.raises(ValueError, match="argument reduce"):
        func(*args, 'mean')


def test_cross_covariance_batch_sizes_must_match():
    with pytest.raises(TypeError, match='cross_covariance: argument z'):
        F.cross_covariance(np.zeros((2, 3)), np.zeros((3, 2)))
