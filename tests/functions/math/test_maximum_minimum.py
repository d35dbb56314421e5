"""maximum and minimum of two arrays."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

_PARAMS = [{'shape1': (3, 2), 'shape2': (3, 2)},
           {'shape1': (3, 2), 'shape2': (2,)},
           {'shape1': (), 'shape2': (2, 2)},
           {'shape1': (), 'shape2': ()},
           {'shape1': (0, 2), 'shape2': (0, 2)}]


class _Extremum(PytestFunctionTestCase):
    params = _PARAMS

    def generate_inputs(self):
        # Values from two interleaved grids: the operands always differ by at least 0.2, so
        # the selection does not change under the numerical step.
        x1 = np.random.choice([-1.0, -0.6, -0.2, 0.2, 0.6, 1.0], self.shape1)
        x2 = np.random.choice([-0.8, -0.4, 0.0, 0.4, 0.8], self.shape2)
        return np.asarray(x1, self.dtype), np.asarray(x2, self.dtype)

    def forward(self, inputs, device):
        return type(self).func(*inputs),

    def forward_expected(self, inputs):
        return np.asarray(type(self).ref(*inputs)),


class TestMaximum(_Extremum):
    func = staticmethod(F.maximum)
    ref = staticmethod(np.maximum)


class TestMinimum(_Extremum):
    func = staticmethod(F.minimum)
    ref = staticmethod(np.minimum)


def test_ties_go_to_the_first_operand():
    for func in (F.maximum, F.minimum):
        a = chainlet.Variable(np.array([1.0, 2.0]))
        b = chainlet.Variable(np.array([1.0, 0.0]))
        y = func(a, b)
        y.grad = np.ones(2)
        y.backward()
        expected_a = [1.0, 1.0] if func is F.maximum else [1.0, 0.0]
        np.testing.assert_array_equal(a.grad, expected_a)
        np.testing.assert_array_equal(a.grad + b.grad, [1.0, 1.0])


def test_broadcast_gradient_is_summed():
    a = chainlet.Variable(np.array([[0.0, 5.0], [3.0, 1.0]]))
    b = chainlet.Variable(np.array([2.0, 2.0]))
    y = F.maximum(a, b)
    y.grad = np.ones((2, 2))
    y.backward()
    np.testing.assert_array_equal(b.grad, [1.0, 1.0])
    np.testing.assert_array_equal(a.grad, [[0, 1], [1, 0]])


@pytest.mark.parametrize('func', [F.maximum, F.minimum])
def test_bad_arguments(func):
    name = func.__name__
    with pytest.raises(TypeError, match=f'{name}: argument x2: expected dtype float32'):
        func(np.ones(2, np.float32), np.ones(2))
    with pytest.raises(TypeError, match=f'{name}: arguments cannot be broadcast'):
        func(np.ones(2), np.ones(3))
    with pytest.raises(TypeError, match=f'{name}: argument x1: expected a floating-point'):
        func(np.ones(2, int), np.ones(2, int))
