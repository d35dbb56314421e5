"""sqrt, rsqrt, square."""
import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class _Unary(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 3)}]
    low, high = 0.5, 2.0

    def generate_inputs(self):
        return np.random.uniform(self.low, self.high, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return type(self).func(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(type(self).ref(x.astype(np.float64))).astype(x.dtype),


class TestSqrt(_Unary):
    func = staticmethod(F.sqrt)
    ref = staticmethod(np.sqrt)


class TestRsqrt(_Unary):
    func = staticmethod(F.rsqrt)

    @staticmethod
    def ref(x):
        return 1 / np.sqrt(x)


class TestSquare(_Unary):
    func = staticmethod(F.square)
    ref = staticmethod(np.square)
    low, high = -2.0, 2.0


@pytest.mark.parametrize('func', [F.sqrt, F.rsqrt, F.square])
def test_integer_input_is_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x'):
        func(np.arange(3))
