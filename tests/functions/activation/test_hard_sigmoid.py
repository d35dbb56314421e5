import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def inside_and_outside(shape, dtype):
    """Values in (-2.4, 2.4) or 2.6 < |x| < 4: at least 0.1 from the kinks at +-2.5."""
    inner = np.random.uniform(-2.4, 2.4, shape)
    outer = np.random.uniform(2.6, 4.0, shape) * np.random.choice([-1.0, 1.0], shape)
    return np.asarray(np.where(np.random.uniform(size=shape) < 0.6, inner, outer), dtype)


class TestHardSigmoid(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return inside_and_outside(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.hard_sigmoid(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.clip(x.astype(np.float64) * 0.2 + 0.5, 0, 1), x.dtype),


def test_hard_sigmoid_gradient_is_zero_at_the_kinks():
    x = chainlet.Variable(np.array([-2.5, -1.0, 2.5, 3.0]))
    F.sum(F.hard_sigmoid(x)).backward()
    np.testing.assert_allclose(x.grad, [0.0, 0.2, 0.0, 0.0])


def test_hard_sigmoid_rejects_integer_input():
    with pytest.raises(InvalidType, match='hard_sigmoid: argument x'):
        F.hard_sigmoid(np.array([1, 2]))
