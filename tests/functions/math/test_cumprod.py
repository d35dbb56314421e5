"""cumprod: values, gradients with and without zeros (to second order), argument errors."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestCumprod(PytestFunctionTestCase):
    params = [{'shape': (4,), 'axis': 0, 'zero': False},
              {'shape': (2, 3, 4), 'axis': 1, 'zero': True},
              {'shape': (2, 3, 4), 'axis': -1, 'zero': False},
              {'shape': (2, 3), 'axis': None, 'zero': True},
              {'shape': (3, 4), 'axis': 0, 'zero': 'two'},
              {'shape': (0, 3), 'axis': 1, 'zero': False},
              {'shape': (0, 3), 'axis': 0, 'zero': False}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=1e-2, rtol=1e-2)
            self.check_backward_options.update(atol=1e-2, rtol=1e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1, eps=0.01)

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape).astype(self.dtype)
        if self.zero and x.size:
            x.ravel()[np.random.choice(x.size, 2 if self.zero == 'two' else 1, False)] = 0
        return x,

    def forward(self, inputs, device):
        return F.cumprod(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        return np.cumprod(inputs[0], axis=self.axis),


def test_gradient_at_a_zero_is_the_product_of_the_others():
    x = chainlet.Variable(np.array([2.0, 0.0, 3.0]))
    F.sum(F.cumprod(x)).backward()
    # d/dx1 (x0 + x0 x1 + x0 x1 x2) = x0 + x0 x2
    np.testing.assert_allclose(x.grad, [1.0, 8.0, 0.0])


@pytest.mark.parametrize('axis', [3, -4])
def test_axis_out_of_range(axis):
    with pytest.raises(TypeError, match='cumprod: argument axis'):
        F.cumprod(np.ones((2, 3, 4), np.float32), axis)


@pytest.mark.parametrize('axis', [[0], (0,), 1.0])
def test_axis_must_be_int(axis):
    with pytest.raises(TypeError, match='cumprod: argument axis'):
        F.cumprod(np.ones((2, 3), np.float32), axis)


def test_integer_input_is_rejected():
    with pytest.raises(TypeError, match='cumprod: argument x'):
        F.cumprod(np.arange(3))
