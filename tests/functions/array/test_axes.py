"""swapaxes, moveaxis, rollaxis, expand_dims, squeeze, flatten."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _uniform(shape, dtype):
    return np.random.uniform(-1, 1, shape).astype(dtype)


class TestSwapaxes(PytestFunctionTestCase):
    params = [{'shape': (2, 3, 4), 'a1': 0, 'a2': 2}, {'shape': (2, 3), 'a1': -1, 'a2': 0},
              {'shape': (0, 2), 'a1': 0, 'a2': 1}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.swapaxes(inputs[0], self.a1, self.a2),

    def forward_expected(self, inputs):
        return np.swapaxes(inputs[0], self.a1, self.a2),


class TestMoveaxis(PytestFunctionTestCase):
    params = [{'shape': (2, 3, 4), 'src': 0, 'dst': -1},
              {'shape': (2, 3, 4), 'src': (0, 1), 'dst': (2, 0)},
              {'shape': (0, 3), 'src': 1, 'dst': 0}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.moveaxis(inputs[0], self.src, self.dst),

    def forward_expected(self, inputs):
        return np.moveaxis(inputs[0], self.src, self.dst),


class TestRollaxis(PytestFunctionTestCase):
    params = [{'shape': (2, 3, 4), 'axis': 2, 'start': 0},
              {'shape': (2, 3, 4), 'axis': 0, 'start': 3},
              {'shape': (2, 3, 4), 'axis': -1, 'start': -2},
              {'shape': (2, 0), 'axis': 1, 'start': 0}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.rollaxis(inputs[0], self.axis, self.start),

    def forward_expected(self, inputs):
        return np.rollaxis(inputs[0], self.axis, self.start),


@pytest.mark.parametrize('ndim', [1, 2, 3, 4])
def test_rollaxis_all_positions_match_numpy(ndim):
    x = np.zeros(tuple(range(2, 2 + ndim)))
    for axis in range(-ndim, ndim):
        for start in range(-ndim, ndim + 1):
            assert F.rollaxis(x, axis, start).shape == np.rollaxis(x, axis, start).shape


def test_moveaxis_all_pairs_match_numpy():
    x = np.zeros((2, 3, 4, 5))
    for s in range(-4, 4):
        for d in range(-4, 4):
            assert F.moveaxis(x, s, d).shape == np.moveaxis(x, s, d).shape
    assert F.moveaxis(x, (0, 3), (3, 1)).shape == np.moveaxis(x, (0, 3), (3, 1)).shape


def test_axis_errors():
    x = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r'swapaxes: argument axis2: expected an axis in '
                                         r'\[-2, 2\).*got 2'):
        F.swapaxes(x, 0, 2)
    with pytest.raises(TypeError, match='swapaxes: argument axis1: expected an int'):
        F.swapaxes(x, 0.0, 1)
    with pytest.raises(ValueError, match='moveaxis: arguments source and destination'):
        F.moveaxis(x, (0, 1), 0)
    with pytest.raises(ValueError, match='moveaxis: argument source: repeated axis'):
        F.moveaxis(x, (0, 0), (0, 1))
    with pytest.raises(ValueError, match=r'rollaxis: argument start: expected a value in '
                                         r'\[-2, 2\], got 3'):
        F.rollaxis(x, 0, 3)
    with pytest.raises(TypeError, match='swapaxes: argument x: expected a Variable or an '
                                        'ndarray, got list'):
        F.swapaxes([1.0], 0, 0)


class TestExpandDims(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'axis': 0}, {'shape': (2, 3), 'axis': -1},
              {'shape': (2, 3), 'axis': 1}, {'shape': (), 'axis': 0},
              {'shape': (0, 2), 'axis': 2}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.expand_dims(inputs[0], self.axis),

    def forward_expected(self, inputs):
        return np.expand_dims(inputs[0], self.axis),


def test_expand_dims_errors():
    with pytest.raises(ValueError, match=r'expand_dims: argument axis: expected an axis in '
                                         r'\[-3, 2\]'):
        F.expand_dims(np.zeros((2, 3)), 3)
    with pytest.raises(TypeError, match='expand_dims: argument axis: expected an int'):
        F.expand_dims(np.zeros((2, 3)), None)


class TestSqueeze(PytestFunctionTestCase):
    params = [{'shape': (1, 3, 1), 'axis': None}, {'shape': (1, 3, 1), 'axis': 2},
              {'shape': (1, 3, 1), 'axis': (0, -1)}, {'shape': (1, 1), 'axis': None},
              {'shape': (0, 1), 'axis': 1}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.squeeze(inputs[0], self.axis),

    def forward_expected(self, inputs):
        return np.squeeze(inputs[0], self.axis),


def test_squeeze_without_unit_axes_is_a_new_node():
    # The harness cannot check an identity whose first-order gradient is gy itself, so the
    # 0-d case is checked here.
    x = chainlet.Variable(np.array(3.0, np.float32))
    y = F.squeeze(x)
    assert y is not x and y.shape == () and y.creator_node is not None
    y.backward()
    assert x.grad == np.float32(1.0) and x.grad.dtype == np.float32


def test_squeeze_errors():
    with pytest.raises(ValueError, match='squeeze: argument axis: expected axes of length 1, '
                                         'but axis 1 of shape'):
        F.squeeze(np.zeros((1, 3)), 1)
    with pytest.raises(ValueError, match='squeeze: argument axis: repeated axis'):
        F.squeeze(np.zeros((1, 3)), (0, -2))


class TestFlatten(PytestFunctionTestCase):
    params = [{'shape': (2, 3)}, {'shape': ()}, {'shape': (0, 3)}]

    def generate_inputs(self):
        return _uniform(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.flatten(inputs[0]),

    def forward_expected(self, inputs):
        return inputs[0].flatten(),


def test_axis_ops_keep_graph():
    x = chainlet.Variable(np.arange(6.0).reshape(1, 2, 3))
    y = F.flatten(F.squeeze(F.swapaxes(F.expand_dims(x, 3), 1, 2)))
    (y * y).sum().backward()
    np.testing.assert_allclose(x.grad, 2 * x.array)
