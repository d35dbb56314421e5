"""flip, fliplr, flipud, diagonal."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestFlip(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'axis': 0}, {'shape': (2, 3), 'axis': -1},
              {'shape': (0, 3), 'axis': 1}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.flip(inputs[0], self.axis),

    def forward_expected(self, inputs):
        return np.flip(inputs[0], self.axis),


class TestFliplr(PytestFunctionTestCase):
    params = [{'shape': (2, 3)}, {'shape': (2, 3, 2)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.fliplr(inputs[0]),

    def forward_expected(self, inputs):
        return np.fliplr(inputs[0]),


class TestFlipud(PytestFunctionTestCase):
    params = [{'shape': (3,)}, {'shape': (3, 2)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.flipud(inputs[0]),

    def forward_expected(self, inputs):
        return np.flipud(inputs[0]),


def test_flip_errors():
    with pytest.raises(ValueError, match=r'flip: argument axis: expected an axis in \[-1, 1\)'):
        F.flip(np.zeros(2), 1)
    with pytest.raises(ValueError, match='flip: argument axis'):
        F.flip(np.zeros(()), 0)
    with pytest.raises(type_check.InvalidType, match='fliplr: argument a: expected ndim >= 2'):
        F.fliplr(np.zeros(2))
    with pytest.raises(type_check.InvalidType, match='flipud: argument a: expected ndim >= 1'):
        F.flipud(np.zeros(()))


class TestDiagonal(PytestFunctionTestCase):
    params = [{'shape': (3, 3), 'offset': 0, 'axis1': 0, 'axis2': 1},
              {'shape': (3, 4), 'offset': 1, 'axis1': 0, 'axis2': 1},
              {'shape': (2, 3, 4), 'offset': -1, 'axis1': 2, 'axis2': 1},
              {'shape': (2, 3, 4), 'offset': 0, 'axis1': 0, 'axis2': -1},
              {'shape': (3, 3), 'offset': 5, 'axis1': 0, 'axis2': 1},
              {'shape': (0, 2), 'offset': 0, 'axis1': 0, 'axis2': 1}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.diagonal(inputs[0], self.offset, self.axis1, self.axis2),

    def forward_expected(self, inputs):
        return np.diagonal(inputs[0], self.offset, self.axis1, self.axis2).copy(),


def test_diagonal_gradient_and_errors():
    x = chainlet.Variable(np.ones((2, 3)))
    F.diagonal(x, offset=1).sum().backward()
    np.testing.assert_array_equal(x.grad, [[0, 1, 0], [0, 0, 1]])
    with pytest.raises(ValueError, match='diagonal: arguments axis1 and axis2: expected '
                                         'different axes, got 0 and -2'):
        F.diagonal(np.zeros((2, 2)), 0, 0, -2)
    with pytest.raises(type_check.InvalidType, match='diagonal: argument x: expected ndim >= 2'):
        F.diagonal(np.zeros(2))
    with pytest.raises(TypeError, match='diagonal: argument offset: expected an int'):
        F.diagonal(np.zeros((2, 2)), 0.5)
