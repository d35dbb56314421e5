"""transpose (an array function of the core)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestTranspose(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'axes': None}, {'shape': (2, 3, 4), 'axes': (2, 0, 1)},
              {'shape': (2, 3, 4), 'axes': (-1, 0, 1)}, {'shape': (), 'axes': None},
              {'shape': (0, 2), 'axes': (1, 0)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.transpose(inputs[0], self.axes),

    def forward_expected(self, inputs):
        return np.transpose(inputs[0], self.axes),


def test_transpose_errors_and_variable_methods():
    x = chainlet.Variable(np.zeros((2, 3, 4)))
    assert x.T.shape == (4, 3, 2)
    assert x.transpose(1, 0, 2).shape == (3, 2, 4)
    with pytest.raises(ValueError, match=r'transpose: argument axes: expected a permutation of '
                                         r'\(0, 1, 2\), got \(0, 0, 1\)'):
        F.transpose(x, (0, 0, 1))


@pytest.mark.parametrize('axes', ['ab', (1.0, 0), (True, False)])
def test_transpose_axes_that_are_not_ints(axes):
    # Issue 13, item 7: a str of axes failed with "not all arguments converted ...".
    with pytest.raises(ValueError, match=r'transpose: argument axes: expected a permutation of '
                                         r'\(0, 1\), got'):
        F.transpose(np.zeros((2, 3), np.float32), axes)
