"""sum and mean: axis, keepdims, 0-d and empty inputs."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

_PARAMS = [{'shape': (3, 4), 'axis': None, 'keepdims': False},
           {'shape': (3, 4), 'axis': 1, 'keepdims': False},
           {'shape': (3, 4), 'axis': -2, 'keepdims': True},
           {'shape': (2, 3, 4), 'axis': (0, 2), 'keepdims': False},
           {'shape': (2, 3, 4), 'axis': (2, 0), 'keepdims': True},
           {'shape': (), 'axis': None, 'keepdims': False},
           {'shape': (), 'axis': None, 'keepdims': True},
           {'shape': (0, 3), 'axis': 1, 'keepdims': False},
           {'shape': (0, 3), 'axis': None, 'keepdims': False}]


class TestSum(PytestFunctionTestCase):
    params = _PARAMS

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.sum(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(x.astype(np.float64).sum(axis=self.axis, keepdims=self.keepdims),
                          self.dtype),


class TestMean(PytestFunctionTestCase):
    # The mean over nothing is NaN; the empty case reduces a non-empty axis only.
    params = [p for p in _PARAMS if not (p['shape'] == (0, 3) and p['axis'] is None)]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.mean(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(x.astype(np.float64).mean(axis=self.axis, keepdims=self.keepdims),
                          self.dtype),


def test_mean_of_nothing_is_nan_without_warning():
    y = F.mean(np.zeros((0, 3), np.float32))
    assert y.dtype == np.float32 and np.isnan(y.array)


def test_variable_methods():
    x = chainlet.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(x.sum(axis=0).array, [3, 5, 7])
    np.testing.assert_array_equal(x.mean(axis=1, keepdims=True).array, [[1], [4]])


def test_sum_gradient_broadcasts():
    x = chainlet.Variable(np.ones((2, 3)))
    y = F.sum(x, axis=1)
    y.grad = np.array([1.0, 2.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[1, 1, 1], [2, 2, 2]])


@pytest.mark.parametrize('func', [F.sum, F.mean])
def test_bad_axis(func):
    name = func.__name__
    with pytest.raises(ValueError, match=f'{name}: argument axis: expected values in'):
        func(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match=f'{name}: argument axis: duplicate'):
        func(np.ones((2, 3)), axis=(1, -1))
    with pytest.raises(TypeError, match=f'{name}: argument axis: expected int'):
        func(np.ones((2, 3)), axis=(1.0,))


@pytest.mark.parametrize('func', [F.sum, F.mean, F.prod, F.average, F.normalize])
@pytest.mark.parametrize('axis', [1.0, np.int64(1), '1'])
def test_axis_of_wrong_kind_names_function_and_argument(func, axis):
    # Not a bare "'float' object is not iterable" from tuple(axis).
    with pytest.raises(TypeError, match=f'{func.__name__}: argument axis: expected None, an '
                                        'int or a tuple of ints, got '):
        func(np.ones((2, 3)), axis=axis)


def test_sum_rejects_integers():
    with pytest.raises(TypeError, match='sum: argument x'):
        F.sum(np.arange(3))


@pytest.mark.parametrize('func', [F.mean, F.average])
def test_mean_and_average_errors_name_themselves(func):
    name = func.__name__
    with pytest.raises(TypeError, match=f'{name}: argument x: expected a floating-point'):
        func(np.arange(3))
    with pytest.raises(TypeError, match=f'{name}: argument x: expected a Variable or an '
                                        'ndarray, got list'):
        func([1.0, 2.0])


@pytest.mark.parametrize('func', [F.sum, F.prod])
def test_list_axis_is_rejected_as_in_chainer(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument axis: expected None, an int'):
        func(np.ones((2, 3)), axis=[0])


def test_sum_gradient_without_type_checks():
    x = chainlet.Variable(np.ones((2, 3)))
    with chainlet.using_config('type_check', False):
        y = F.sum(x, axis=0)
        y.grad = np.ones(3)
        y.backward()
    np.testing.assert_array_equal(x.grad, np.ones((2, 3)))
