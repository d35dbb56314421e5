import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _huber(d, delta):
    a = np.abs(d)
    return np.where(a <= delta, 0.5 * d * d, delta * (a - 0.5 * delta))


class TestHuberLoss(PytestFunctionTestCase):
    params = [
        {'shape': (4, 3), 'delta': 1.0, 'reduce': 'sum_along_second_axis'},
        {'shape': (2, 3, 2), 'delta': 0.5, 'reduce': 'sum_along_second_axis'},
        {'shape': (4, 3), 'delta': 1.0, 'reduce': 'no'},
        {'shape': (), 'delta': 1.0, 'reduce': 'no'},
        {'shape': (0, 3), 'delta': 1.0, 'reduce': 'sum_along_second_axis'},
    ]

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape)
        d = np.random.uniform(-2, 2, self.shape)
        # Stay away from |d| == delta, where the second derivative jumps.
        d = np.where(np.abs(np.abs(d) - self.delta) < 0.1, d * 0.5, d)
        return np.asarray(x, self.dtype), np.asarray(x + d, self.dtype)

    def forward(self, inputs, device):
        return F.huber_loss(inputs[0], inputs[1], self.delta, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = (a.astype(np.float64) for a in inputs)
        y = _huber(x - t, self.delta)
        if self.reduce == 'sum_along_second_axis':
            y = y.sum(axis=1)
        return np.asarray(y, self.dtype),


def test_values():
    x = np.array([[0.5, 3.0], [-0.2, -2.0]])
    y = F.huber_loss(x, np.zeros_like(x), delta=1.0, reduce='no')
    np.testing.assert_allclose(y.array, [[0.125, 2.5], [0.02, 1.5]])


def test_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match='huber_loss: argument reduce'):
        F.huber_loss(x, x, 1.0, reduce='mean')
    with pytest.raises(ValueError, match='huber_loss: argument delta'):
        F.huber_loss(x, x, 0.0)
    with pytest.raises(TypeError, match='huber_loss: argument delta'):
        F.huber_loss(x, x, 'one')
    with pytest.raises(TypeError, match='huber_loss: argument t: expected shape'):
        F.huber_loss(x, np.zeros((3, 2), np.float32), 1.0)
    with pytest.raises(TypeError, match='huber_loss: argument x: expected ndim >= 2'):
        F.huber_loss(np.zeros(3, np.float32), np.zeros(3, np.float32), 1.0)


@pytest.mark.parametrize('dtype,residual,expected', [
    (np.float16, 1000.0, 999.5),        # was NaN: 1000^2 overflows float16
    (np.float32, 1e6, 999999.5),        # was 983040: a^2 - (a - delta)^2 cancels
    (np.float32, 1e8, 1e8),             # was 0
    (np.float64, 1e8, 1e8 - 0.5),
    (np.float64, -3e7, 3e7 - 0.5),
])
def test_large_residuals_are_linear(dtype, residual, expected):
    x = chainlet.Variable(np.array([[residual, 0.5]], dtype))
    y = F.huber_loss(x, np.zeros_like(x.array), delta=1.0, reduce='no')
    y.grad = np.ones_like(y.array)
    y.backward()
    assert y.dtype == dtype
    np.testing.assert_allclose(y.array[0].astype(np.float64), [expected, 0.125], rtol=1e-7)
    np.testing.assert_array_equal(x.grad, np.array([[np.sign(residual), 0.5]], dtype))


def test_large_residual_gradients_of_every_order():
    x = chainlet.Variable(np.array([[1e6, -1e6, 0.25]], np.float32))
    t = chainlet.Variable(np.zeros((1, 3), np.float32))
    y = F.huber_loss(x, t, delta=2.0)
    gx, gt = chainlet.grad([y], [x, t], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, [[2.0, -2.0, 0.25]])
    np.testing.assert_array_equal(gt.array, [[-2.0, 2.0, -0.25]])
    ggx, = chainlet.grad([F.sum(gx * gx)], [x])
    # d(gx^2)/dx = 2 gx * [|d| <= delta]: zero on the linear parts
    np.testing.assert_array_equal(ggx.array, [[0.0, 0.0, 0.5]])
