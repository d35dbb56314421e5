"""max, min (differentiable selections) and argmax, argmin (integer, no gradient)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _distinct(shape, dtype):
    # Distinct values, spaced so that the selection does not change under the numerical step.
    n = int(np.prod(shape))
    x = np.random.permutation(n).reshape(shape) * 0.1 - 0.05 * n
    return np.asarray(x, dtype)


_PARAMS = [{'shape': (3, 4), 'axis': None, 'keepdims': False},
           {'shape': (3, 4), 'axis': 1, 'keepdims': False},
           {'shape': (3, 4), 'axis': 0, 'keepdims': True},
           {'shape': (2, 3, 2), 'axis': (0, 2), 'keepdims': False},
           {'shape': (), 'axis': None, 'keepdims': False},
           {'shape': (0, 3), 'axis': 1, 'keepdims': False}]


class TestMax(PytestFunctionTestCase):
    params = _PARAMS

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.max(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        return np.asarray(np.amax(inputs[0], axis=self.axis, keepdims=self.keepdims)),


class TestMin(PytestFunctionTestCase):
    params = _PARAMS

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.min(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        return np.asarray(np.amin(inputs[0], axis=self.axis, keepdims=self.keepdims)),


def test_max_ties_each_receive_the_gradient():
    x = chainlet.Variable(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]))
    y = F.max(x, axis=1)
    y.grad = np.array([1.0, 2.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0, 1, 1], [2, 0, 0]])


def test_min_gradient_with_keepdims():
    x = chainlet.Variable(np.array([[1.0, 3.0], [2.0, 0.0]], np.float32))
    y = F.min(x, axis=0, keepdims=True)
    assert y.shape == (1, 2)
    y.grad = np.ones((1, 2), np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[1, 0], [0, 1]])


@pytest.mark.parametrize('func', [F.max, F.min, F.argmax, F.argmin])
def test_empty_reduction_is_an_error(func):
    with pytest.raises(ValueError, match=f'{func.__name__}: argument x: expected a non-empty'):
        func(np.zeros((0, 3)), axis=0)


@pytest.mark.parametrize('func', [F.max, F.min, F.argmax, F.argmin])
def test_bad_arguments(func):
    name = func.__name__
    with pytest.raises(TypeError, match=f'{name}: argument x: expected a floating-point'):
        func(np.arange(3))
    with pytest.raises(ValueError, match=f'{name}: argument axis'):
        func(np.ones((2, 3)), axis=2)
    with pytest.raises(TypeError, match=f'{name}: argument axis: expected None'):
        func(np.ones((2, 3)), axis=1.5)


def test_argmax_argmin_axis_must_be_int():
    with pytest.raises(TypeError, match='argmax: argument axis: expected None or an int'):
        F.argmax(np.ones((2, 3)), axis=(0, 1))


@pytest.mark.parametrize('axis', [None, 0, 1, -1])
def test_argmax_argmin_values_and_dtype(axis):
    x = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    for func, ref in ((F.argmax, np.argmax), (F.argmin, np.argmin)):
        y = func(x, axis=axis)
        assert y.dtype == np.int32
        assert isinstance(y.array, np.ndarray)
        np.testing.assert_array_equal(y.array, ref(x, axis=axis))


def test_argmax_passes_no_gradient():
    x = chainlet.Variable(np.array([1.0, 3.0, 2.0]))
    i = F.argmax(x)
    assert int(i.array) == 1
    # The index can select an element without breaking the graph of x.
    y = x[int(i.array)] * 2.0
    y.backward()
    np.testing.assert_array_equal(x.grad, [0, 2, 0])
