import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def sigmoid_ref(x):
    xd = x.astype(np.float64)
    # exp(-|x|) never overflows; pick the form that does not divide inf by inf.
    e = np.exp(-np.abs(xd))
    return np.asarray(np.where(xd >= 0, 1 / (1 + e), e / (1 + e)), x.dtype)


class TestSigmoid(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return np.asarray(np.random.uniform(-4, 4, self.shape), self.dtype),

    def forward(self, inputs, device):
        return F.sigmoid(inputs[0]),

    def forward_expected(self, inputs):
        return sigmoid_ref(inputs[0]),


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_sigmoid_stable_at_1e4(dtype):
    x = chainlet.Variable(np.array([-1e4, -3e3, 0.0, 3e3, 1e4], dtype))
    y = F.sigmoid(x)
    np.testing.assert_allclose(y.array, [0.0, 0.0, 0.5, 1.0, 1.0])
    gx, = chainlet.grad([F.sum(y)], [x], enable_double_backprop=True)
    ggx, = chainlet.grad([F.sum(gx)], [x])
    for a in (y.array, gx.array, ggx.array):
        assert a.dtype == dtype and np.all(np.isfinite(a))
    np.testing.assert_allclose(gx.array, [0.0, 0.0, 0.25, 0.0, 0.0])
    np.testing.assert_allclose(ggx.array, [0.0, 0.0, 0.0, 0.0, 0.0])


def test_sigmoid_tail_values():
    y = F.sigmoid(np.array([-30.0, 30.0]))
    # tanh(x/2)/2 + 1/2 is accurate in absolute terms (not relative) in the left tail.
    np.testing.assert_allclose(y.array, [9.357622968840175e-14, 1 - 9.357622968840175e-14],
                               rtol=0, atol=1e-15)
    assert y.array[0] > 0


def test_sigmoid_rejects_integer_input():
    with pytest.raises(InvalidType, match='sigmoid: argument x'):
        F.sigmoid(np.array([1, 2]))
