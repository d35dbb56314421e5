import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestBilinear(PytestFunctionTestCase):
    params = [
        {'e1_shape': (3, 2), 'e2_shape': (3, 4), 'out': 3, 'linear': True},
        {'e1_shape': (3, 2), 'e2_shape': (3, 4), 'out': 3, 'linear': False},
        # e1 and e2 with more than two axes are flattened after the batch axis.
        {'e1_shape': (2, 2, 2), 'e2_shape': (2, 3), 'out': 2, 'linear': True},
        {'e1_shape': (0, 2), 'e2_shape': (0, 3), 'out': 2, 'linear': True},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=1e-2, rtol=1e-2)
            self.check_backward_options.update(atol=5e-2, rtol=1e-1)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        J = int(np.prod(self.e1_shape[1:]))
        K = int(np.prod(self.e2_shape[1:]))
        L = self.out
        shapes = [self.e1_shape, self.e2_shape, (J, K, L)]
        if self.linear:
            shapes += [(J, L), (K, L), (L,)]
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in shapes)

    def forward(self, inputs, device):
        return F.bilinear(*inputs),

    def forward_expected(self, inputs):
        e1, e2, W = (a.astype(np.float64) for a in inputs[:3])
        n = e1.shape[0]
        e1 = e1.reshape(n, W.shape[0])
        e2 = e2.reshape(n, W.shape[1])
        y = np.einsum('ij,ik,jkl->il', e1, e2, W)
        if self.linear:
            V1, V2, b = inputs[3:]
            y = y + e1 @ V1 + e2 @ V2 + b
        return y.astype(self.dtype),


def test_value():
    e1 = chainlet.Variable(np.array([[1.0, 2.0]]))
    e2 = chainlet.Variable(np.array([[3.0]]))
    W = np.array([[[1.0]], [[10.0]]])
    y = F.bilinear(e1, e2, W, np.array([[1.0], [1.0]]), np.array([[2.0]]), np.array([0.5]))
    np.testing.assert_allclose(y.array, [[63 + 3 + 6 + 0.5]])
    y.backward()
    np.testing.assert_allclose(e1.grad, [[3 + 1, 30 + 1]])
    np.testing.assert_allclose(e2.grad, [[21 + 2]])


@pytest.mark.parametrize('kw,err,match', [
    ({'V1': np.ones((2, 3), np.float32)}, ValueError,
     'bilinear: arguments V1, V2, b: expected all three or none, got V2, b missing'),
    ({'W': np.ones((2, 4, 3), np.float32)}, TypeError,
     r'bilinear: argument W: expected shape \(\*, 5, \*\) to match e2'),
    ({'W': np.ones((2, 5), np.float32)}, TypeError, 'bilinear: argument W: expected ndim 3'),
    ({'e2': np.ones((3, 5), np.float32)}, TypeError,
     'bilinear: argument e2: expected batch size 4'),
    ({'e1': np.ones((4, 2), np.float64)}, TypeError,
     'bilinear: argument e2: expected dtype float64'),
    ({'V1': np.ones((2, 3), np.float32), 'V2': np.ones((5, 3), np.float32),
      'b': np.ones(2, np.float32)}, TypeError, r'bilinear: argument b: expected shape \(3,\)'),
])
def test_errors(kw, err, match):
    args = {'e1': np.ones((4, 2), np.float32), 'e2': np.ones((4, 5), np.float32),
            'W': np.ones((2, 5, 3), np.float32)}
    args.update(kw)
    with pytest.raises(err, match=match):
        F.bilinear(**args)
