"""reshape (an array function of the core)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestReshape(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'out': (3, 2)}, {'shape': (2, 3), 'out': (-1,)},
              {'shape': (), 'out': (1, 1)}, {'shape': (0, 2), 'out': (2, 0)},
              {'shape': (4,), 'out': (2, -1)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.reshape(inputs[0], self.out),

    def forward_expected(self, inputs):
        return inputs[0].reshape(self.out),


def test_reshape_same_shape_int_and_errors():
    x = chainlet.Variable(np.zeros((2, 3)))
    assert F.reshape(x, (2, 3)) is x
    assert F.reshape(np.zeros(3), 3).shape == (3,)
    assert x.reshape(3, 2).shape == (3, 2)
    with pytest.raises(ValueError, match=r'reshape: argument shape: cannot reshape an array of '
                                         r'shape \(2, 3\) \(size 6\) to \(4, -1\)'):
        F.reshape(x, (4, -1))
    with pytest.raises(ValueError, match='reshape: argument shape'):
        F.reshape(x, (-1, -1))
