"""tensordot."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestTensordot(PytestFunctionTestCase):
    params = [{'a': (2, 3, 4), 'b': (3, 4, 2), 'axes': 2},
              {'a': (2, 3), 'b': (3, 4), 'axes': 1},
              {'a': (2, 3), 'b': (4, 5), 'axes': 0},
              {'a': (3, 2, 4), 'b': (4, 5, 3), 'axes': ([0, 2], [2, 0])},
              {'a': (3, 4), 'b': (4, 3), 'axes': ((1, 0), (0, 1))},
              {'a': (2, 3), 'b': (3,), 'axes': ([1], [0])},
              {'a': (2, 3), 'b': (2,), 'axes': (0, 0)},
              {'a': (0, 3), 'b': (3, 2), 'axes': 1}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.a).astype(self.dtype),
                np.random.uniform(-1, 1, self.b).astype(self.dtype))

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def forward(self, inputs, device):
        return F.tensordot(*inputs, axes=self.axes),

    def forward_expected(self, inputs):
        a, b = inputs
        return np.asarray(np.tensordot(a.astype(np.float64), b, axes=self.axes), self.dtype),


def test_bad_axes():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    with pytest.raises(ValueError, match=r'tensordot: argument axes: expected an int in \[0, 2'):
        F.tensordot(a, b, axes=3)
    with pytest.raises(ValueError, match='tensordot: arguments a and b: summed axes differ'):
        F.tensordot(a, b, axes=([0], [0]))
    with pytest.raises(ValueError, match='tensordot: argument axes: expected as many axes'):
        F.tensordot(a, b, axes=([1], [0, 1]))
    with pytest.raises(ValueError, match='tensordot: argument axes: axis 5 is out of range'):
        F.tensordot(a, b, axes=([5], [0]))
    with pytest.raises(TypeError, match='tensordot: argument axes: expected an int or a pair'):
        F.tensordot(a, b, axes='ij')
    with pytest.raises(ValueError, match='tensordot: argument axes: expected a pair'):
        F.tensordot(a, b, axes=())
    with pytest.raises(TypeError, match='tensordot: argument b: expected a floating-point'):
        F.tensordot(a, b.astype(np.int32), axes=1)


def test_mixed_dtypes_promote_and_cast_gradients_back():
    a = chainlet.Variable(np.random.rand(2, 3).astype(np.float16))
    b = chainlet.Variable(np.random.rand(3, 4).astype(np.float32))
    y = F.tensordot(a, b, axes=1)
    assert y.dtype == np.float32
    F.sum(y).backward()
    assert a.grad.dtype == np.float16 and b.grad.dtype == np.float32
    np.testing.assert_allclose(b.grad, a.array.T.astype(np.float32) @ np.ones((2, 4)),
                               rtol=1e-3)
