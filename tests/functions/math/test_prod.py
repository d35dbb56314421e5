"""prod: values, axes, and exact gradients with zeros."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestProd(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'axis': None, 'keepdims': False, 'zeros': 0},
              {'shape': (3, 4), 'axis': 1, 'keepdims': False, 'zeros': 0},
              {'shape': (3, 4), 'axis': 0, 'keepdims': True, 'zeros': 1},
              {'shape': (2, 3, 2), 'axis': (0, 2), 'keepdims': False, 'zeros': 1},
              {'shape': (2, 3, 2), 'axis': (2, 1), 'keepdims': True, 'zeros': 2},
              {'shape': (5,), 'axis': 0, 'keepdims': False, 'zeros': 2},
              {'shape': (), 'axis': None, 'keepdims': False, 'zeros': 0},
              {'shape': (0, 3), 'axis': 0, 'keepdims': False, 'zeros': 0},
              {'shape': (0, 3), 'axis': 1, 'keepdims': False, 'zeros': 0}]

    def generate_inputs(self):
        x = np.random.uniform(0.5, 1.5, self.shape) * np.random.choice([-1, 1], self.shape)
        flat = x.reshape(-1)
        flat[np.random.permutation(flat.size)[:self.zeros]] = 0.0
        return np.asarray(x, self.dtype),

    def forward(self, inputs, device):
        return F.prod(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.prod(x.astype(np.float64), axis=self.axis,
                                  keepdims=self.keepdims), self.dtype),


def _other_products(x):
    return np.array([np.prod(np.delete(x, i)) for i in range(x.size)])


@pytest.mark.parametrize('values', [[2.0, 3.0, 4.0], [2.0, 0.0, 4.0], [0.0, 3.0, 0.0],
                                    [5.0], [1.0, 2.0, 3.0, 4.0, 5.0, 0.0, 7.0]])
def test_gradient_is_the_product_of_the_others(values):
    x = chainlet.Variable(np.array(values))
    y = F.prod(x)
    y.backward()
    np.testing.assert_allclose(x.grad, _other_products(x.array))


def test_second_derivative_with_a_zero():
    # d2/dx0 dx1 of x0 x1 x2 is x2; with x0 = 0 a division-based gradient would give NaN.
    x = chainlet.Variable(np.array([0.0, 2.0, 3.0]))
    y = F.prod(x)
    gx, = chainlet.grad([y], [x], enable_double_backprop=True)
    ggx, = chainlet.grad([gx[0]], [x])
    np.testing.assert_allclose(ggx.array, [0.0, 3.0, 2.0])


def test_prod_of_nothing_is_one():
    y = F.prod(np.zeros((0, 2), np.float32), axis=0)
    np.testing.assert_array_equal(y.array, [1.0, 1.0])
    assert y.dtype == np.float32


def test_bad_arguments():
    with pytest.raises(TypeError, match='prod: argument x'):
        F.prod(np.arange(3))
    with pytest.raises(ValueError, match='prod: argument axis'):
        F.prod(np.ones(3), axis=1)
