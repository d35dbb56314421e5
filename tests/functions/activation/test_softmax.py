import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


class TestSoftmax(PytestFunctionTestCase):
    params = [
        {'shape': (3, 4), 'axis': 1},
        {'shape': (2, 3, 2), 'axis': 0},
        {'shape': (2, 3, 2), 'axis': -1},
        {'shape': (5,), 'axis': 0},
        {'shape': (0, 3), 'axis': 1},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=2e-3, rtol=2e-3)

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.softmax(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        return _softmax(x, self.axis).astype(self.dtype),


def test_default_axis_is_one():
    x = np.random.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    np.testing.assert_allclose(F.softmax(x).array, _softmax(x, 1), rtol=1e-6)


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_large_inputs_are_stable(dtype):
    x = chainlet.Variable(np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, -1e4]], dtype))
    y = F.softmax(x)
    np.testing.assert_allclose(y.array, [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-6)
    (y * np.array([[1, 2, 3], [1, 2, 3]], dtype)).sum().backward()
    assert np.isfinite(x.grad).all()


def test_bad_axis():
    with pytest.raises(ValueError, match='softmax: argument axis'):
        F.softmax(np.zeros((2, 3), np.float32), axis=2)
    with pytest.raises(TypeError, match='softmax: argument axis'):
        F.softmax(np.zeros((2, 3), np.float32), axis=1.0)
    with pytest.raises(ValueError, match='softmax: argument x'):
        F.softmax(np.zeros((), np.float32))


def test_integer_input_rejected():
    with pytest.raises(TypeError, match='softmax: argument x'):
        F.softmax(np.zeros((2, 3), np.int32))
