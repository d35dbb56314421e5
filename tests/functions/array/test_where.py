"""where and select_item."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


class TestWhere(PytestFunctionTestCase):
    params = [{'c': (3, 2), 'x': (3, 2), 'y': (3, 2)}, {'c': (3, 1), 'x': (2,), 'y': (3, 2)},
              {'c': (), 'x': (2,), 'y': ()}, {'c': (0, 2), 'x': (0, 2), 'y': (2,)}]

    def generate_inputs(self):
        c = np.asarray(np.random.uniform(-1, 1, self.c) > 0)
        x = np.random.uniform(-1, 1, self.x).astype(self.dtype)
        y = np.random.uniform(-1, 1, self.y).astype(self.dtype)
        return c, x, y

    def forward(self, inputs, device):
        return F.where(*inputs),

    def forward_expected(self, inputs):
        return np.where(*inputs),


def test_where_gradients_and_scalars():
    c = np.array([True, False, True])
    x = chainlet.Variable(np.array([1.0, 2.0, 3.0], np.float32))
    y = F.where(c, x, 0.0)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, [1, 0, 3])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, [1, 0, 1])
    z = F.where(chainlet.Variable(c), -1.0, x)
    np.testing.assert_array_equal(z.array, [-1, 2, -1])


def test_where_errors():
    x = np.zeros(2)
    with pytest.raises(type_check.InvalidType, match='where: argument condition: expected a '
                                                     'boolean dtype, got int64'):
        F.where(np.array([1, 0]), x, x)
    with pytest.raises(type_check.InvalidType, match='where: argument y: expected dtype float64'):
        F.where(x > 0, x, x.astype(np.float32))
    with pytest.raises(type_check.InvalidType, match='where: arguments cannot be broadcast'):
        F.where(x > 0, x, np.zeros(3))


class TestSelectItem(PytestFunctionTestCase):
    params = [{'shape': (4, 3)}, {'shape': (1, 1)}, {'shape': (0, 3)}]

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        t = np.random.randint(0, self.shape[1], self.shape[0]).astype(np.int32)
        return x, t

    def forward(self, inputs, device):
        return F.select_item(*inputs),

    def forward_expected(self, inputs):
        x, t = inputs
        return x[np.arange(len(t)), t],


def test_select_item_negative_index_and_errors():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(F.select_item(x, np.array([-1, 0])).array, [2, 3])
    with pytest.raises(ValueError, match=r'select_item: argument t: expected values in '
                                         r'\[-3, 3\), got 3'):
        F.select_item(x, np.array([0, 3]))
    with pytest.raises(type_check.InvalidType, match='select_item: argument t: expected an '
                                                     'integer dtype'):
        F.select_item(x, np.array([0.0, 1.0]))
    with pytest.raises(type_check.InvalidType, match=r'select_item: argument t: expected shape '
                                                     r'\(2,\), got \(3,\)'):
        F.select_item(x, np.array([0, 1, 2]))
    with pytest.raises(type_check.InvalidType, match='select_item: argument x: expected ndim 2'):
        F.select_item(np.zeros(3), np.array([0]))
