"""sin, cos, tan, arcsin, arccos, arctan, arctan2."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

from math_cases import UnaryCase


class TestSin(UnaryCase):
    func = staticmethod(F.sin)
    ref = staticmethod(np.sin)
    low, high = -3.0, 3.0


class TestCos(UnaryCase):
    func = staticmethod(F.cos)
    ref = staticmethod(np.cos)
    low, high = -3.0, 3.0


class TestTan(UnaryCase):
    func = staticmethod(F.tan)
    ref = staticmethod(np.tan)

    def setup(self):
        if self.dtype == np.float16:
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)


class TestArcsin(UnaryCase):
    func = staticmethod(F.arcsin)
    ref = staticmethod(np.arcsin)
    low, high = -0.8, 0.8


class TestArccos(UnaryCase):
    func = staticmethod(F.arccos)
    ref = staticmethod(np.arccos)
    low, high = -0.8, 0.8


class TestArctan(UnaryCase):
    func = staticmethod(F.arctan)
    ref = staticmethod(np.arctan)
    low, high = -3.0, 3.0


class TestArctan2(PytestFunctionTestCase):
    params = [{'shape1': (3, 2), 'shape2': (3, 2)},
              {'shape1': (3, 2), 'shape2': (2,)},
              {'shape1': (), 'shape2': (4,)},
              {'shape1': (), 'shape2': ()},
              {'shape1': (0, 2), 'shape2': (0, 2)}]

    def generate_inputs(self):
        x1 = np.random.uniform(-1, 1, self.shape1)
        # Keep the points away from the origin, where the angle is not differentiable.
        x2 = np.random.uniform(0.5, 1.5, self.shape2) * np.random.choice([-1, 1], self.shape2)
        return np.asarray(x1, self.dtype), np.asarray(x2, self.dtype)

    def forward(self, inputs, device):
        return F.arctan2(*inputs),

    def forward_expected(self, inputs):
        x1, x2 = inputs
        return np.arctan2(x1.astype(np.float64), x2).astype(self.dtype),


@pytest.mark.parametrize('func', [F.sin, F.cos, F.tan, F.arcsin, F.arccos, F.arctan])
def test_integer_input_is_rejected(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x'):
        func(np.arange(3))


def test_arctan2_rejects_mixed_dtypes_and_shapes():
    a = np.ones(3, np.float32)
    with pytest.raises(TypeError, match='arctan2: argument x2: expected dtype float32'):
        F.arctan2(a, np.ones(3))
    with pytest.raises(TypeError, match='arctan2: arguments cannot be broadcast'):
        F.arctan2(a, np.ones(2, np.float32))


def test_arctan2_quadrants():
    y = F.arctan2(np.array([1.0, 1.0, -1.0, -1.0]), np.array([1.0, -1.0, -1.0, 1.0]))
    np.testing.assert_allclose(y.array, np.array([1, 3, -3, -1]) * np.pi / 4)


def test_tan_gradient_is_one_plus_square():
    x = chainlet.Variable(np.array([0.3, -1.2]))
    y = F.tan(x)
    y.grad = np.ones(2)
    y.backward()
    np.testing.assert_allclose(x.grad, 1 / np.cos(x.array) ** 2)


def test_labels_are_the_function_names():
    from chainlet.functions.math import trigonometric as t
    assert (t.Sin().label, t.Cos().label, t.Tan().label) == ('sin', 'cos', 'tan')
