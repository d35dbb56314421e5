"""squared_difference (broadcasting), squared_error and absolute_error (equal shapes)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestSquaredDifference(PytestFunctionTestCase):
    params = [{'shape1': (3, 2), 'shape2': (3, 2)},
              {'shape1': (3, 2), 'shape2': (2,)},
              {'shape1': (), 'shape2': ()},
              {'shape1': (0, 2), 'shape2': (0, 2)}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape1).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape2).astype(self.dtype))

    def forward(self, inputs, device):
        return F.squared_difference(*inputs),

    def forward_expected(self, inputs):
        x1, x2 = (a.astype(np.float64) for a in inputs)
        return np.asarray((x1 - x2) ** 2, self.dtype),


class TestSquaredError(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        return F.squared_error(*inputs),

    def forward_expected(self, inputs):
        x0, x1 = (a.astype(np.float64) for a in inputs)
        return np.asarray((x0 - x1) ** 2, self.dtype),


class TestAbsoluteError(PytestFunctionTestCase):
    params = [{'shape': (3, 2)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        x0 = np.random.uniform(-1, 1, self.shape)
        # Keep |x0 - x1| >= 0.1, away from the kink at zero.
        d = np.random.uniform(0.1, 1, self.shape) * np.random.choice([-1, 1], self.shape)
        return np.asarray(x0, self.dtype), np.asarray(x0 + d, self.dtype)

    def forward(self, inputs, device):
        return F.absolute_error(*inputs),

    def forward_expected(self, inputs):
        x0, x1 = (a.astype(np.float64) for a in inputs)
        return np.asarray(np.abs(x0 - x1), self.dtype),


def test_absolute_error_gradient_is_the_sign():
    x0 = chainlet.Variable(np.array([1.0, 2.0, 3.0]))
    x1 = chainlet.Variable(np.array([2.0, 2.0, 1.0]))
    y = F.absolute_error(x0, x1)
    y.grad = np.ones(3)
    y.backward()
    np.testing.assert_array_equal(x0.grad, [-1, 0, 1])
    np.testing.assert_array_equal(x1.grad, [1, 0, -1])


@pytest.mark.parametrize('func', [F.squared_error, F.absolute_error])
def test_errors_need_equal_shapes(func):
    name = func.__name__
    with pytest.raises(TypeError, match=rf'{name}: argument x1: expected shape \(3, 1\)'):
        func(np.ones((3, 1)), np.ones(3))
    with pytest.raises(TypeError, match=f'{name}: argument x1: expected dtype float64'):
        func(np.ones(3), np.ones(3, np.float32))
    with pytest.raises(TypeError, match=f'{name}: argument x0: expected a floating-point'):
        func(np.ones(3, int), np.ones(3, int))


def test_squared_difference_errors():
    with pytest.raises(TypeError, match='squared_difference: arguments cannot be broadcast'):
        F.squared_difference(np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match='squared_difference: argument x2: expected dtype'):
        F.squared_difference(np.ones(2), np.ones(2, np.float32))
