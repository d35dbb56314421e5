import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestGaussian(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 3)}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def generate_inputs(self):
        self.eps = np.random.standard_normal(self.shape).astype(self.dtype)
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        mean, ln_var = inputs
        y = F.gaussian(mean, ln_var, eps=self.eps.astype(mean.dtype))
        # gaussian's gradient for mean is gy itself. check_backward drops outputs that have no
        # creator, which loses that term in the double-backward check; a factor of one gives
        # the first-order gradient a creator without changing any derivative.
        return y * 1.0,

    def forward_expected(self, inputs):
        mean, ln_var = [a.astype(np.float64) for a in inputs]
        return (mean + np.exp(ln_var / 2) * self.eps).astype(self.dtype),


def test_samples_have_requested_moments():
    np.random.seed(0)
    mean = np.full(20000, 2.0)
    ln_var = np.full(20000, np.log(9.0))
    y = F.gaussian(mean, ln_var).array
    assert abs(y.mean() - 2.0) < 0.1
    assert abs(y.std() - 3.0) < 0.1


def test_return_eps_and_reuse():
    mean = np.zeros(4, np.float32)
    ln_var = np.zeros(4, np.float32)
    y1, eps = F.gaussian(mean, ln_var, return_eps=True)
    assert eps.dtype == np.float32 and eps.shape == (4,)
    y2 = F.gaussian(mean, ln_var, eps=eps)
    np.testing.assert_array_equal(y1.array, y2.array)


def test_samples_in_test_mode_too():
    np.random.seed(1)
    with chainlet.using_config('train', False):
        y = F.gaussian(np.zeros(5), np.zeros(5))
    assert np.all(y.array != 0)


def test_bad_arguments():
    with pytest.raises(InvalidType, match=r'gaussian: argument ln_var: expected shape \(3,\)'):
        F.gaussian(np.zeros(3), np.zeros(4))
    with pytest.raises(InvalidType, match='gaussian: argument ln_var: expected dtype float64'):
        F.gaussian(np.zeros(3), np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match='gaussian: argument mean: expected a floating-point'):
        F.gaussian(np.zeros(3, np.int32), np.zeros(3, np.int32))
    with pytest.raises(InvalidType, match=r'gaussian: argument eps: expected shape \(3,\)'):
        F.gaussian(np.zeros(3), np.zeros(3), eps=np.zeros(2))
