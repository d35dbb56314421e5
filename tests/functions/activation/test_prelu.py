import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def prelu_ref(x, W):
    Wb = W.reshape((1,) + W.shape + (1,) * (x.ndim - W.ndim - 1))
    return np.asarray(np.where(x >= 0, x, x * Wb), x.dtype)


class TestPReLU(PytestFunctionTestCase):
    params = [{'x_shape': (2, 3, 4), 'W_shape': (3,)},
              {'x_shape': (2, 3, 4), 'W_shape': (3, 4)},
              {'x_shape': (2, 3), 'W_shape': ()},
              {'x_shape': (3,), 'W_shape': ()},
              {'x_shape': (0, 3), 'W_shape': (3,)}]

    def generate_inputs(self):
        x = np.random.uniform(0.1, 1, self.x_shape) * \
            np.random.choice([-1.0, 1.0], self.x_shape)
        W = np.random.uniform(-1, 1, self.W_shape)
        return np.asarray(x, self.dtype), np.asarray(W, self.dtype)

    def forward(self, inputs, device):
        return F.prelu(*inputs),

    def forward_expected(self, inputs):
        return prelu_ref(*inputs),


def test_prelu_zero_input_passes_through():
    x = chainlet.Variable(np.array([[0.0, -2.0]]))
    W = chainlet.Variable(np.array([0.5, 0.25]))
    y = F.prelu(x, W)
    np.testing.assert_allclose(y.array, [[0.0, -0.5]])
    F.sum(y).backward()
    np.testing.assert_allclose(x.grad, [[1.0, 0.25]])
    np.testing.assert_allclose(W.grad, [0.0, -2.0])


def test_prelu_rejects_bad_shapes_and_dtypes():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'prelu: argument W: expected shape x.shape\[1:1 '):
        F.prelu(x, np.zeros(4, np.float32))
    with pytest.raises(InvalidType, match='prelu: argument W'):
        F.prelu(x, np.zeros((2, 3), np.float32))
    with pytest.raises(InvalidType, match='prelu: argument W: expected dtype float32'):
        F.prelu(x, np.zeros(3, np.float64))
    with pytest.raises(InvalidType, match='prelu: argument x'):
        F.prelu(np.zeros((2, 3), np.int32), np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match='prelu: argument W'):
        F.prelu(np.zeros((), np.float32), np.zeros((), np.float32))
