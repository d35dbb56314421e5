"""concat, stack, hstack, vstack, dstack, split_axis, separate."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestConcat(PytestFunctionTestCase):
    params = [{'shapes': [(2, 1), (2, 3)], 'axis': 1},
              {'shapes': [(1, 2), (3, 2), (2, 2)], 'axis': 0},
              {'shapes': [(2, 3, 1), (2, 3, 2)], 'axis': -1},
              {'shapes': [(2, 0), (2, 2)], 'axis': 1},
              {'shapes': [(3,)], 'axis': 0}]

    def generate_inputs(self):
        return tuple(_uniform(s, self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.concat(inputs, self.axis),

    def forward_expected(self, inputs):
        return np.concatenate(inputs, self.axis),


def test_concat_errors():
    a, b = np.zeros((2, 3)), np.zeros((3, 3))
    with pytest.raises(type_check.InvalidType,
                       match=r'concat: argument xs\[1\]: expected shape \(2, \*\) \(as xs\[0\] '
                             r'except on axis 1\), got \(3, 3\)'):
        F.concat([a, b], axis=1)
    with pytest.raises(type_check.InvalidType, match=r'concat: argument xs\[1\]: expected dtype '
                                                     r'float64'):
        F.concat([a, a.astype(np.float32)], axis=0)
    with pytest.raises(ValueError, match='concat: argument xs: expected at least one array'):
        F.concat([])
    with pytest.raises(TypeError, match='concat: argument xs: expected a list or tuple'):
        F.concat(a)
    with pytest.raises(ValueError, match='concat: argument axis'):
        F.concat([a, a], axis=2)
    with pytest.raises(type_check.InvalidType, match=r'concat: argument xs\[0\]: expected '
                                                     r'ndim >= 1'):
        F.concat([np.zeros(()), np.zeros(())], axis=0)


def test_concat_partial_gradients():
    a = chainlet.Variable(np.ones((2, 1)))
    b = np.ones((2, 2))
    F.concat([a, b]).sum().backward()
    np.testing.assert_array_equal(a.grad, np.ones((2, 1)))


class TestStack(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'n': 2, 'axis': 0}, {'shape': (2, 3), 'n': 3, 'axis': -1},
              {'shape': (2, 3), 'n': 2, 'axis': 1}, {'shape': (), 'n': 2, 'axis': 0},
              {'shape': (0, 2), 'n': 2, 'axis': 1}]

    def generate_inputs(self):
        return tuple(_uniform(self.shape, self.dtype) for _ in range(self.n))

    def forward(self, inputs, device):
        return F.stack(inputs, self.axis),

    def forward_expected(self, inputs):
        return np.stack(inputs, self.axis),


def test_stack_errors():
    with pytest.raises(type_check.InvalidType, match=r'stack: argument xs\[1\]: expected shape '
                                                     r'\(2,\) \(the shape of xs\[0\]\), got'):
        F.stack([np.zeros(2), np.zeros(3)])
    with pytest.raises(ValueError, match=r'stack: argument axis: expected an axis in \[-2, 1\]'):
        F.stack([np.zeros(2), np.zeros(2)], axis=2)


class TestHstack(PytestFunctionTestCase):
    params = [{'shapes': [(2,), (3,)]}, {'shapes': [(2, 1), (2, 3)]}, {'shapes': [(), ()]},
              {'shapes': [(2, 0, 1), (2, 2, 1)]}]

    def generate_inputs(self):
        return tuple(_uniform(s, self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.hstack(inputs),

    def forward_expected(self, inputs):
        return np.hstack(inputs),


class TestVstack(PytestFunctionTestCase):
    params = [{'shapes': [(2,), (2,)]}, {'shapes': [(1, 3), (2, 3)]}, {'shapes': [(), ()]},
              {'shapes': [(0, 2, 2), (1, 2, 2)]}]

    def generate_inputs(self):
        return tuple(_uniform(s, self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.vstack(inputs),

    def forward_expected(self, inputs):
        return np.vstack(inputs),


class TestDstack(PytestFunctionTestCase):
    params = [{'shapes': [(2,), (2,)]}, {'shapes': [(2, 3), (2, 3)]}, {'shapes': [(), ()]},
              {'shapes': [(2, 1, 1), (2, 1, 3)]}]

    def generate_inputs(self):
        return tuple(_uniform(s, self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.dstack(inputs),

    def forward_expected(self, inputs):
        return np.dstack(inputs),


@pytest.mark.parametrize('func', ['hstack', 'vstack', 'dstack'])
def test_stacking_errors(func):
    f = getattr(F, func)
    with pytest.raises(type_check.InvalidType, match=rf'{func}: argument xs\[1\]: expected '
                                                     rf'ndim 1 \(the ndim of xs\[0\]\)'):
        f([np.zeros(2), np.zeros((2, 2))])
    with pytest.raises(ValueError, match=f'{func}: argument xs: expected at least one array'):
        f([])
    with pytest.raises(type_check.InvalidType, match=rf'{func}: argument xs\[1\]: expected '
                                                     rf'dtype float64'):
        f([np.zeros((2, 2, 2)), np.zeros((2, 2, 2), np.float32)])


def test_vstack_dstack_need_equal_small_shapes():
    with pytest.raises(type_check.InvalidType, match=r'vstack: argument xs\[1\]: expected shape'):
        F.vstack([np.zeros(2), np.zeros(3)])
    with pytest.raises(type_check.InvalidType, match=r'dstack: argument xs\[1\]: expected shape'):
        F.dstack([np.zeros((2, 2)), np.zeros((2, 3))])
    with pytest.raises(type_check.InvalidType, match=r'hstack: argument xs\[1\]: expected shape'):
        F.hstack([np.zeros((2, 2)), np.zeros((3, 3))])


class TestSplitAxis(PytestFunctionTestCase):
    params = [{'shape': (2, 6), 'ios': 3, 'axis': 1}, {'shape': (5, 2), 'ios': [1, 3], 'axis': 0},
              {'shape': (2, 4), 'ios': [0, 2, 6], 'axis': -1},
              {'shape': (3, 4), 'ios': np.array([-1]), 'axis': 1},
              {'shape': (0, 2), 'ios': 2, 'axis': 1}, {'shape': (4,), 'ios': [], 'axis': 0}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.split_axis(inputs[0], self.ios, self.axis)

    def forward_expected(self, inputs):
        return tuple(np.split(inputs[0], self.ios, self.axis))


def test_split_axis_force_tuple():
    x = np.arange(4.0)
    ys = F.split_axis(x, 1, 0)
    assert isinstance(ys, tuple) and len(ys) == 1
    y = F.split_axis(x, 1, 0, force_tuple=False)
    assert isinstance(y, chainlet.Variable) and y.shape == (4,)
    assert isinstance(F.split_axis(x, 2, 0, force_tuple=False), tuple)


def test_split_axis_missing_output_gradients_are_zero():
    x = chainlet.Variable(np.arange(6.0, dtype=np.float32))
    a, b, c = F.split_axis(x, 3, 0)
    (b * 2.0).sum().backward()
    np.testing.assert_array_equal(x.grad, np.array([0, 0, 2, 2, 0, 0], np.float32))
    # Double backprop through the zero-filled gradient of the unused outputs.
    x = chainlet.Variable(np.arange(6.0))
    a, b, c = F.split_axis(x, [2, 3], 0)
    gx, = chainlet.grad([(c * c).sum()], [x], enable_double_backprop=True)
    np.testing.assert_array_equal(gx.array, [0, 0, 0, 6, 8, 10])
    ggx, = chainlet.grad([gx.sum()], [x])
    np.testing.assert_array_equal(ggx.array, [0, 0, 0, 2, 2, 2])


def test_split_axis_errors():
    x = np.zeros((2, 5))
    with pytest.raises(ValueError, match='split_axis: argument indices_or_sections: expected a '
                                         'positive number of sections dividing the axis length 5'):
        F.split_axis(x, 2, 1)
    with pytest.raises(ValueError, match='split_axis: argument indices_or_sections: expected '
                                         'sorted offsets'):
        F.split_axis(x, [3, 1], 1)
    with pytest.raises(TypeError, match='split_axis: argument indices_or_sections: expected an '
                                        'int or a 1-D sequence of ints'):
        F.split_axis(x, [1.5], 1)
    with pytest.raises(ValueError, match='split_axis: argument axis'):
        F.split_axis(x, 1, 2)


class TestSeparate(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'axis': 0}, {'shape': (2, 3, 2), 'axis': -1},
              {'shape': (3,), 'axis': 0}, {'shape': (2, 0), 'axis': 0}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.separate(inputs[0], self.axis)

    def forward_expected(self, inputs):
        x = inputs[0]
        return tuple(np.take(x, i, axis=self.axis) for i in range(x.shape[self.axis]))


def test_separate_is_inverse_of_stack_and_handles_unused_outputs():
    x = chainlet.Variable(np.arange(6.0).reshape(3, 2))
    ys = F.separate(x, axis=1)
    assert len(ys) == 2 and ys[0].shape == (3,)
    np.testing.assert_array_equal(F.stack(ys, axis=1).array, x.array)
    (ys[1] * 3.0).sum().backward()
    np.testing.assert_array_equal(x.grad, [[0, 3], [0, 3], [0, 3]])
    assert F.separate(np.zeros((0, 2))) == ()
    with pytest.raises(ValueError, match='separate: argument axis'):
        F.separate(np.zeros(()))
