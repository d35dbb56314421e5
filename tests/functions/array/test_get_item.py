"""get_item (an array function of the core)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestGetItem(PytestFunctionTestCase):
    params = [{'shape': (4, 3), 'slices': (slice(1, 3), 0)},
              {'shape': (4, 3), 'slices': (slice(None, None, -1), slice(2, None, -2))},
              {'shape': (4, 3), 'slices': (None, Ellipsis, 1)},
              {'shape': (4, 3), 'slices': np.array([0, 2, 2, 0])},
              {'shape': (4, 3), 'slices': ([1, 1, 3], [0, 2, 0])},
              {'shape': (2, 3), 'slices': np.array([[True, False, True], [False, False, True]])},
              {'shape': (3,), 'slices': 1},
              {'shape': (), 'slices': ()},
              {'shape': (0, 2), 'slices': (slice(None), 1)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.get_item(inputs[0], self.slices),

    def forward_expected(self, inputs):
        return np.asarray(inputs[0][self.slices]),


def test_get_item_repeated_indices_accumulate():
    x = chainlet.Variable(np.arange(4.0))
    y = x[np.array([3, 3, 0, 3])]
    (y * np.array([1.0, 2.0, 3.0, 4.0])).sum().backward()
    np.testing.assert_array_equal(x.grad, [3, 0, 0, 7])


def test_get_item_boolean_mask_and_negative_step():
    x = chainlet.Variable(np.arange(6.0).reshape(2, 3))
    y = x[x.array > 2.5]
    np.testing.assert_array_equal(y.array, [3, 4, 5])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, [[0, 0, 0], [1, 1, 1]])
    x.cleargrad()
    z = x[:, ::-2]
    np.testing.assert_array_equal(z.array, [[2, 0], [5, 3]])
    z.sum().backward()
    np.testing.assert_array_equal(x.grad, [[1, 0, 1], [1, 0, 1]])


def test_get_item_variable_index_and_error():
    x = chainlet.Variable(np.arange(3.0))
    idx = chainlet.Variable(np.array([2, 0]), requires_grad=False)
    np.testing.assert_array_equal(F.get_item(x, idx).array, [2, 0])
    with pytest.raises(IndexError, match='get_item: argument slices'):
        F.get_item(x, 5)
