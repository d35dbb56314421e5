import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestRReLU(PytestFunctionTestCase):
    params = [{'shape': (3, 2), 'train': True}, {'shape': (3, 2), 'train': False},
              {'shape': (), 'train': True}, {'shape': (0, 2), 'train': True}]

    def setup(self):
        self.r = np.random.uniform(0.1, 0.3, self.shape)

    def generate_inputs(self):
        x = np.random.uniform(0.1, 1, self.shape) * np.random.choice([-1, 1], self.shape)
        return np.asarray(x, self.dtype),

    def forward(self, inputs, device):
        with chainlet.using_config('train', self.train):
            return F.rrelu(inputs[0], l=0.1, u=0.3, r=device.send(self.r.astype(inputs[0].dtype))),

    def forward_expected(self, inputs):
        x, = inputs
        r = self.r.astype(x.dtype) if self.train else x.dtype.type(0.2)
        return np.asarray(np.where(x >= 0, x, x * r), x.dtype),


def test_rrelu_draws_slopes_within_bounds_and_returns_them():
    np.random.seed(0)
    x = -np.ones((100,), np.float32)
    y, r = F.rrelu(x, l=0.2, u=0.25, return_r=True)
    assert r.shape == x.shape and r.dtype == np.float32
    assert 0.2 <= r.min() and r.max() < 0.25
    np.testing.assert_allclose(y.array, -r)
    given = np.full(3, 0.1, np.float32)
    _, r2 = F.rrelu(np.zeros(3, np.float32), r=given, return_r=True)
    assert r2 is given


def test_rrelu_test_mode_uses_mean_slope():
    with chainlet.using_config('train', False):
        y, r = F.rrelu(np.array([-1.0, 2.0]), l=0.1, u=0.3, return_r=True)
    np.testing.assert_allclose(y.array, [-0.2, 2.0])
    np.testing.assert_allclose(r, [0.2, 0.2])


@pytest.mark.parametrize('l, u', [(-0.1, 0.3), (0.1, 1.0), (0.3, 0.2)])
def test_rrelu_rejects_bad_bounds(l, u):  # noqa: E741
    with pytest.raises(ValueError, match='rrelu: argument'):
        F.rrelu(np.zeros(2, np.float32), l=l, u=u)


def test_rrelu_rejects_integer_input_and_bad_r():
    with pytest.raises(InvalidType, match='rrelu: argument x'):
        F.rrelu(np.zeros(2, np.int32))
    with pytest.raises(InvalidType, match='rrelu: argument r'):
        F.rrelu(np.zeros(2, np.float32), r=np.zeros(3, np.float32))
