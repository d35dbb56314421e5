import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def distinct_values(shape, dtype):
    """Values at least 0.04 apart, so that no perturbation changes which entry is the max."""
    n = int(np.prod(shape))
    x = np.random.permutation(n) * 0.05 + np.random.uniform(0, 0.01, n) - n * 0.025
    return np.asarray(x.reshape(shape), dtype)


def maxout_ref(x, pool_size, axis):
    axis %= x.ndim
    shape = x.shape[:axis] + (x.shape[axis] // pool_size, pool_size) + x.shape[axis + 1:]
    return np.asarray(x.reshape(shape).max(axis=axis + 1), x.dtype)


class TestMaxout(PytestFunctionTestCase):
    params = [{'shape': (2, 6), 'pool_size': 3, 'axis': 1},
              {'shape': (2, 4, 3), 'pool_size': 2, 'axis': 1},
              {'shape': (2, 3, 4), 'pool_size': 2, 'axis': -1},
              {'shape': (6, 2), 'pool_size': 6, 'axis': 0},
              {'shape': (4,), 'pool_size': 1, 'axis': 0},
              {'shape': (0, 4), 'pool_size': 2, 'axis': 1}]

    def generate_inputs(self):
        return distinct_values(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.maxout(inputs[0], self.pool_size, axis=self.axis),

    def forward_expected(self, inputs):
        return maxout_ref(inputs[0], self.pool_size, self.axis),


def test_maxout_matches_chainer_example():
    x = np.arange(100, dtype=np.float32).reshape(1, 100)
    y = F.maxout(x, 10)
    assert y.shape == (1, 10)
    np.testing.assert_array_equal(y.array, [[9, 19, 29, 39, 49, 59, 69, 79, 89, 99]])


def test_maxout_ties_all_receive_the_gradient():
    # As Chainer's F.max: every entry equal to the maximum gets the output gradient.
    x = chainlet.Variable(np.array([[1.0, 3.0, 3.0, 0.0]]))
    y = F.maxout(x, 4)
    y.grad = np.array([[2.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 2.0, 2.0, 0.0]])


def test_maxout_rejects_bad_arguments():
    x = np.zeros((2, 6), np.float32)
    with pytest.raises(ValueError, match='maxout: argument pool_size: expected a positive'):
        F.maxout(x, 0)
    with pytest.raises(TypeError, match='maxout: argument pool_size: expected an int'):
        F.maxout(x, 2.0)
    with pytest.raises(InvalidType,
                       match=r'maxout: argument x: expected shape\[1\] divisible by '
                             r'pool_size 4, got shape \(2, 6\)'):
        F.maxout(x, 4)
    with pytest.raises(ValueError, match='maxout: argument axis'):
        F.maxout(x, 2, axis=2)
    with pytest.raises(TypeError, match='maxout: argument axis: expected an int'):
        F.maxout(x, 2, axis=None)
    with pytest.raises(InvalidType, match='maxout: argument x'):
        F.maxout(np.zeros((2, 6), np.int32), 2)
    with pytest.raises(InvalidType, match='maxout: argument x: expected ndim >= 1'):
        F.maxout(np.zeros((), np.float32), 1)
