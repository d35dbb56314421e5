"""scatter_add, permutate."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


class TestScatterAdd(PytestFunctionTestCase):
    params = [{'shape': (4, 3), 'slices': (slice(1, 3), 0), 'b': (2,)},
              {'shape': (4, 3), 'slices': [0, 2, 2], 'b': (3, 3)},
              {'shape': (4, 3), 'slices': (np.array([1, 1, 3]), slice(None)), 'b': (3, 3)},
              {'shape': (4, 3), 'slices': (Ellipsis, None, 1), 'b': (4, 1)},
              {'shape': (2, 2), 'slices': np.array([[True, False], [False, True]]), 'b': (2,)},
              {'shape': (), 'slices': (), 'b': ()},
              {'shape': (0, 2), 'slices': slice(None), 'b': (0, 2)}]

    def generate_inputs(self):
        a = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        b = np.random.uniform(-1, 1, self.b).astype(self.dtype)
        return a, b

    def forward(self, inputs, device):
        # The gradient of a is gy itself, which the double-backward harness cannot follow (it
        # ignores first-order gradients that are its own inputs); scaling by one gives that
        # gradient a creator without changing any value.
        return F.scatter_add(inputs[0], self.slices, inputs[1]) * 1.0,

    def forward_expected(self, inputs):
        a, b = inputs
        y = a.copy()
        s = (self.slices,) if isinstance(self.slices, list) else self.slices
        np.add.at(y, s, b)
        return y,


def test_scatter_add_does_not_modify_input_and_accumulates():
    a = np.zeros(3)
    y = F.scatter_add(a, [1, 1], np.array([1.0, 2.0]))
    np.testing.assert_array_equal(y.array, [0, 3, 0])
    np.testing.assert_array_equal(a, 0)
    b = chainlet.Variable(np.ones(2))
    av = chainlet.Variable(np.zeros(3))
    (F.scatter_add(av, ([0, 2],), b) * np.array([1.0, 2.0, 3.0])).sum().backward()
    np.testing.assert_array_equal(b.grad, [1, 3])
    np.testing.assert_array_equal(av.grad, [1, 2, 3])


def test_scatter_add_errors():
    with pytest.raises(ValueError, match=r'scatter_add: argument b: expected shape \(2,\) \(the '
                                         r'shape of a\[slices\]; no broadcasting\), got \(1,\)'):
        F.scatter_add(np.zeros(3), slice(0, 2), np.zeros(1))
    with pytest.raises(type_check.InvalidType, match='scatter_add: argument b: expected dtype '
                                                     'float64'):
        F.scatter_add(np.zeros(3), 0, np.zeros((), np.float32))
    with pytest.raises(IndexError, match='scatter_add: argument slices'):
        F.scatter_add(np.zeros(3), 5, np.zeros(()))


class TestPermutate(PytestFunctionTestCase):
    params = [{'shape': (4, 2), 'axis': 0, 'inv': False},
              {'shape': (4, 3), 'axis': 1, 'inv': True},
              {'shape': (2, 3), 'axis': -1, 'inv': False},
              {'shape': (0, 2), 'axis': 0, 'inv': False}]

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        return x, np.random.permutation(self.shape[self.axis]).astype(np.int32)

    def forward(self, inputs, device):
        return F.permutate(inputs[0], inputs[1], self.axis, self.inv),

    def forward_expected(self, inputs):
        x, ind = inputs
        if self.inv:
            ind = np.argsort(ind)
        return np.take(x, ind, axis=self.axis),


def test_permutate_inverse_and_errors():
    x = np.arange(6.0).reshape(3, 2)
    ind = np.array([2, 0, 1])
    y = F.permutate(x, ind)
    np.testing.assert_array_equal(F.permutate(y, ind, inv=True).array, x)
    with pytest.raises(ValueError, match=r'permutate: argument indices: expected a permutation '
                                         r'of 0..2, got \[0, 0, 1\]'):
        F.permutate(x, np.array([0, 0, 1]))
    with pytest.raises(type_check.InvalidType, match=r'permutate: argument indices: expected '
                                                     r'shape \(3,\), got \(2,\)'):
        F.permutate(x, np.array([0, 1]))
    with pytest.raises(type_check.InvalidType, match='permutate: argument indices: expected an '
                                                     'integer dtype'):
        F.permutate(x, np.array([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match=r'permutate: argument axis: expected an axis in '
                                         r'\[-2, 2\)'):
        F.permutate(x, ind, axis=2)
