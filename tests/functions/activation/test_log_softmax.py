import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


class TestLogSoftmax(PytestFunctionTestCase):
    params = [
        {'shape': (3, 4), 'axis': 1},
        {'shape': (2, 3, 2), 'axis': 0},
        {'shape': (2, 3, 2), 'axis': 2},
        {'shape': (4,), 'axis': -1},
        {'shape': (0, 3), 'axis': 1},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.log_softmax(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return _log_softmax(x, self.axis).astype(self.dtype),


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_large_inputs_are_stable(dtype):
    x = chainlet.Variable(np.array([[1e4, -1e4, 0.0], [2e4, 2e4, 2e4]], np.float64).astype(dtype))
    y = F.log_softmax(x)
    assert np.isfinite(y.array).all()
    np.testing.assert_allclose(y.array[1], np.full(3, -np.log(3.0)), rtol=1e-2)
    assert y.array[0, 0] == 0
    gy = np.array([[1, 2, 3], [1, 2, 3]], dtype)
    gx, = chainlet.grad([y], [x], [gy])
    assert np.isfinite(gx.array).all()
    np.testing.assert_allclose(gx.array[0], [1 - 6, 2, 3], rtol=1e-3)


def test_exp_of_log_softmax_matches_softmax():
    x = np.random.uniform(-3, 3, (4, 5))
    np.testing.assert_allclose(np.exp(F.log_softmax(x).array), F.softmax(x).array, rtol=1e-12)


def test_bad_axis():
    with pytest.raises(ValueError, match='log_softmax: argument axis'):
        F.log_softmax(np.zeros((2, 3), np.float32), axis=-3)
