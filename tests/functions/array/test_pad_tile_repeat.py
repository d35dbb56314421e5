"""pad, tile, repeat."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestPad(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'pw': 1, 'mode': 'constant', 'kw': {}},
              {'shape': (2, 3), 'pw': ((1, 0), (0, 2)), 'mode': 'constant',
               'kw': {'constant_values': 1.5}},
              {'shape': (), 'pw': 0, 'mode': 'constant', 'kw': {}},
              {'shape': (), 'pw': 0, 'mode': 'wrap', 'kw': {}},
              {'shape': (0, 2), 'pw': (1, 2), 'mode': 'constant', 'kw': {}},
              {'shape': (3, 2), 'pw': ((2, 1), (1, 3)), 'mode': 'edge', 'kw': {}},
              {'shape': (3, 2), 'pw': ((2, 4), (1, 1)), 'mode': 'reflect', 'kw': {}},
              {'shape': (3,), 'pw': (4, 2), 'mode': 'symmetric', 'kw': {}},
              {'shape': (2, 3), 'pw': 4, 'mode': 'wrap', 'kw': {}}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.pad(inputs[0], self.pw, self.mode, **self.kw),

    def forward_expected(self, inputs):
        return np.pad(inputs[0], self.pw, self.mode, **self.kw),


def test_pad_default_mode_and_gradient_accumulates_copies():
    x = chainlet.Variable(np.array([1.0, 2.0]))
    np.testing.assert_array_equal(F.pad(x, (1, 0)).array, [0, 1, 2])
    F.pad(x, (2, 2), mode='edge').sum().backward()
    np.testing.assert_array_equal(x.grad, [3, 3])


def test_pad_errors():
    x = np.zeros((2, 2))
    with pytest.raises(ValueError, match="pad: argument mode: expected one of 'constant', "
                                         "'edge', 'reflect', 'symmetric', 'wrap', got 'mean'"):
        F.pad(x, 1, 'mean')
    with pytest.raises(ValueError, match='pad: argument pad_width: expected non-negative'):
        F.pad(x, -1)
    with pytest.raises(ValueError, match='pad: argument pad_width: expected an int, a pair or 2 '
                                         'pairs'):
        F.pad(x, ((1, 1), (1, 1), (1, 1)))
    with pytest.raises(TypeError, match='pad: argument pad_width: expected an int'):
        F.pad(x, 1.5)
    with pytest.raises(TypeError, match=r"pad: unexpected keyword argument\(s\) \['foo'\]"):
        F.pad(x, 1, foo=1)
    with pytest.raises(ValueError, match="pad: argument reflect_type: only 'even'"):
        F.pad(x, 1, 'reflect', reflect_type='odd')
    with pytest.raises(ValueError, match="pad: argument x: mode 'edge' cannot pad an empty"):
        F.pad(np.zeros((0, 2)), 1, 'edge')


class TestTile(PytestFunctionTestCase):
    params = [{'shape': (2,), 'reps': 3}, {'shape': (2, 3), 'reps': (2, 1)},
              {'shape': (2,), 'reps': (2, 2)}, {'shape': (2, 3, 1), 'reps': (3,)},
              {'shape': (), 'reps': 2}, {'shape': (2,), 'reps': 0},
              {'shape': (2,), 'reps': (1, 1)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.tile(inputs[0], self.reps),

    def forward_expected(self, inputs):
        return np.tile(inputs[0], self.reps),


def test_tile_by_ones_is_a_new_node():
    x = chainlet.Variable(np.ones((2, 2), np.float32))
    y = F.tile(x, 1)
    assert y is not x and y.creator_node is not None
    y.sum().backward()
    np.testing.assert_array_equal(x.grad, np.ones((2, 2), np.float32))


def test_tile_errors():
    with pytest.raises(ValueError, match='tile: argument reps: expected non-negative values'):
        F.tile(np.zeros(2), -1)
    with pytest.raises(TypeError, match='tile: argument reps: expected an int, got float'):
        F.tile(np.zeros(2), 1.5)


class TestRepeat(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'repeats': 2, 'axis': None},
              {'shape': (2, 3), 'repeats': 2, 'axis': 1},
              {'shape': (2, 3), 'repeats': [1, 0, 3], 'axis': -1},
              {'shape': (3, 2), 'repeats': (2, 2, 2), 'axis': 0},
              {'shape': (), 'repeats': 3, 'axis': None},
              {'shape': (0, 2), 'repeats': 2, 'axis': 0},
              {'shape': (2, 2), 'repeats': 0, 'axis': 1}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.repeat(inputs[0], self.repeats, self.axis),

    def forward_expected(self, inputs):
        return np.repeat(inputs[0], self.repeats, self.axis),


def test_repeat_array_repeats_and_errors():
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(F.repeat(x, np.array([2, 1])).array, [1, 1, 2])
    with pytest.raises(ValueError, match='repeat: argument repeats: expected one value or 2 '
                                         'values'):
        F.repeat(x, [1, 2, 3])
    with pytest.raises(ValueError, match='repeat: argument repeats: expected non-negative'):
        F.repeat(x, -1)
    with pytest.raises(TypeError, match='repeat: argument repeats: expected an int, got float'):
        F.repeat(x, [1.5, 1.0])
    with pytest.raises(ValueError, match='repeat: argument axis'):
        F.repeat(x, 2, axis=1)
