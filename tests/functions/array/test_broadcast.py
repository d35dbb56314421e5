"""broadcast and broadcast_to."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestBroadcast(PytestFunctionTestCase):
    # No input already has the output shape: the harness cannot check a gradient that is gy
    # itself (see test_broadcast_same_shapes).
    params = [{'shapes': [(2, 1), (3,)]}, {'shapes': [(), (1, 2), (2, 1)]},
              {'shapes': [(0, 1), (3,)]}]

    def generate_inputs(self):
        return tuple(_uniform(s, self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.broadcast(*inputs)

    def forward_expected(self, inputs):
        return tuple(np.broadcast_arrays(*inputs))


def test_broadcast_same_shapes():
    a = chainlet.Variable(np.ones((2, 2)))
    b = chainlet.Variable(np.ones((1, 2)))
    ya, yb = F.broadcast(a, b)
    assert ya.creator_node is not None
    ga, gb = chainlet.grad([(ya * yb * 3.0).sum()], [a, b], enable_double_backprop=True)
    np.testing.assert_array_equal(ga.array, np.full((2, 2), 3.0))
    np.testing.assert_array_equal(gb.array, [[6.0, 6.0]])
    gga, = chainlet.grad([gb.sum()], [a])
    np.testing.assert_array_equal(gga.array, np.full((2, 2), 3.0))


def test_broadcast_single_argument_is_a_variable():
    x = np.zeros((2, 3), np.float32)
    y = F.broadcast(x)
    assert isinstance(y, chainlet.Variable) and y.array is x
    v = chainlet.Variable(x)
    assert F.broadcast(v) is v


def test_broadcast_partial_output_gradients():
    a = chainlet.Variable(np.ones((2, 1)))
    b = chainlet.Variable(np.ones(3))
    ya, yb = F.broadcast(a, b)
    (ya * 2.0).sum().backward()
    np.testing.assert_array_equal(a.grad, [[6.0], [6.0]])
    assert b.grad is None


def test_broadcast_errors():
    with pytest.raises(type_check.InvalidType, match=r'broadcast: arguments cannot be broadcast '
                                                     r'together: args\[0\] \(2,\), args\[1\] '
                                                     r'\(3,\)'):
        F.broadcast(np.zeros(2), np.zeros(3))
    with pytest.raises(TypeError, match='broadcast: expected at least one argument'):
        F.broadcast()
    with pytest.raises(TypeError, match=r'broadcast: argument args\[1\]: expected a Variable'):
        F.broadcast(np.zeros(2), 1.0)


class TestBroadcastTo(PytestFunctionTestCase):
    params = [{'shape': (3,), 'out': (2, 3)}, {'shape': (2, 1), 'out': (2, 4)},
              {'shape': (), 'out': (2, 2)}, {'shape': (1, 3), 'out': (0, 3)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.broadcast_to(inputs[0], self.out),

    def forward_expected(self, inputs):
        return np.broadcast_to(inputs[0], self.out),


def test_broadcast_to_same_shape_and_errors():
    x = chainlet.Variable(np.zeros(3))
    assert F.broadcast_to(x, (3,)) is x
    with pytest.raises(ValueError, match=r'broadcast_to: argument shape: cannot broadcast an '
                                         r'array of shape \(3,\) to shape \(2, 2\)'):
        F.broadcast_to(np.zeros(3), (2, 2))
    with pytest.raises(ValueError, match=r'cannot broadcast an array of shape \(3,\) to shape '
                                         r'\(3, 2\)'):
        F.broadcast_to(x, (3, 2))
    with pytest.raises(TypeError, match='broadcast_to: argument x: expected a Variable or an '
                                        'ndarray, got Variable'):
        F.broadcast_to(chainlet.Variable(None), (2,))  # a Variable without an array
    # a size-one axis broadcasts, a leading axis is added, a NumPy integer is a size
    np.testing.assert_array_equal(F.broadcast_to(np.ones((1, 3)), (2, np.int64(2), 3)).array,
                                  np.ones((2, 2, 3)))


@pytest.mark.parametrize('shape', [(-1, 3), ('a', 3), (2.0, 3)])
def test_broadcast_to_shape_entries_that_are_not_sizes(shape):
    # Issue 13, item 7: a negative size reached NumPy's bare "must be non-negative" message.
    with pytest.raises(ValueError, match=r'broadcast_to: argument shape: cannot broadcast an '
                                         r'array of shape \(3,\) to shape'):
        F.broadcast_to(np.zeros(3, np.float32), shape)
