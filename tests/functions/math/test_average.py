"""average: plain and weighted."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestAverage(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'axis': None, 'keepdims': False, 'weighted': False},
              {'shape': (3, 4), 'axis': (0, 1), 'keepdims': True, 'weighted': False},
              {'shape': (3, 4), 'axis': None, 'keepdims': False, 'weighted': True},
              {'shape': (3, 4), 'axis': 1, 'keepdims': False, 'weighted': True},
              {'shape': (3, 4), 'axis': -2, 'keepdims': True, 'weighted': True},
              {'shape': (2, 3, 2), 'axis': (1,), 'keepdims': False, 'weighted': True},
              {'shape': (), 'axis': None, 'keepdims': False, 'weighted': True},
              {'shape': (0, 3), 'axis': 1, 'keepdims': False, 'weighted': True}]

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        if not self.weighted:
            return x,
        if self.axis is None:
            wshape = self.shape
        else:
            a = self.axis[0] if isinstance(self.axis, tuple) else self.axis
            wshape = (self.shape[a],)
        return x, np.random.uniform(0.5, 1.5, wshape).astype(self.dtype)

    def setup(self):
        if self.dtype == np.float16:
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def forward(self, inputs, device):
        w = inputs[1] if self.weighted else None
        return F.average(inputs[0], axis=self.axis, weights=w, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        w = inputs[1].astype(np.float64) if self.weighted else None
        axis = self.axis
        if w is not None and w.ndim == 1 and x.ndim > 1:
            axis = axis[0] if isinstance(axis, tuple) else axis
        y = np.average(x, axis=axis, weights=w, keepdims=self.keepdims) if x.size else \
            np.zeros(np.sum(x, axis=axis, keepdims=self.keepdims).shape)
        return np.asarray(y, self.dtype),


def test_weights_get_a_gradient():
    x = chainlet.Variable(np.array([1.0, 3.0]))
    w = chainlet.Variable(np.array([1.0, 1.0]))
    y = F.average(x, weights=w)
    y.backward()
    np.testing.assert_allclose(x.grad, [0.5, 0.5])
    np.testing.assert_allclose(w.grad, [-0.5, 0.5])


def test_bad_weights():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match=r'average: argument weights: expected shape \(3,\)'):
        F.average(x, axis=1, weights=np.ones(2))
    with pytest.raises(ValueError, match=r'average: argument weights: expected shape \(2, 3\)'):
        F.average(x, weights=np.ones(3))
    with pytest.raises(ValueError, match='average: argument axis: expected at most one axis'):
        F.average(x, axis=(0, 1), weights=np.ones(3))
    with pytest.raises(TypeError, match='average: argument weights: expected dtype float64'):
        F.average(x, axis=1, weights=np.ones(3, np.float32))
    with pytest.raises(TypeError, match='average: argument weights: expected None, a Var'):
        F.average(x, axis=1, weights=[1.0, 1.0, 1.0])


def test_variable_mean_takes_weights_like_chainer():
    x = chainlet.Variable(np.array([[1.0, 2.0], [3.0, 5.0]]))
    w = np.array([3.0, 1.0])
    np.testing.assert_allclose(x.mean(axis=1, weights=w).array, [1.25, 3.5])
    np.testing.assert_allclose(x.mean(axis=0, keepdims=True).array, [[2.0, 3.5]])
