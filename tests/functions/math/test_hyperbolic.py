"""sinh, cosh."""
import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class _Unary(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 3)}]

    def generate_inputs(self):
        return np.random.uniform(-2, 2, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return type(self).func(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return type(self).ref(x.astype(np.float64)).astype(x.dtype),


class TestSinh(_Unary):
    func = staticmethod(F.sinh)
    ref = staticmethod(np.sinh)


class TestCosh(_Unary):
    func = staticmethod(F.cosh)
    ref = staticmethod(np.cosh)


@pytest.mark.parametrize('func', [F.sinh, F.cosh])
def test_integer_input_is_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x'):
        func(np.arange(3))
