import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestEmbedID(PytestFunctionTestCase):
    params = [
        {'x_shape': (4,), 'ignore_label': None, 'x_dtype': np.int32},
        {'x_shape': (2, 3), 'ignore_label': None, 'x_dtype': np.int64},
        {'x_shape': (2, 3), 'ignore_label': -1, 'x_dtype': np.int32},
        {'x_shape': (3, 2), 'ignore_label': 2, 'x_dtype': np.int32},
        {'x_shape': (0,), 'ignore_label': None, 'x_dtype': np.int32},
    ]
    n_vocab = 5
    n_units = 3

    def generate_inputs(self):
        low = -1 if self.ignore_label == -1 else 0
        x = np.random.randint(low, self.n_vocab, self.x_shape).astype(self.x_dtype)
        if x.size:
            x.flat[0] = 1  # a repeated id, so that gradients accumulate
            x.flat[-1] = 1
        W = np.random.uniform(-1, 1, (self.n_vocab, self.n_units)).astype(self.dtype)
        return x, W

    def forward(self, inputs, device):
        x, W = inputs
        return F.embed_id(x, W, ignore_label=self.ignore_label),

    def forward_expected(self, inputs):
        x, W = inputs
        y = np.zeros(x.shape + (self.n_units,), self.dtype)
        for i in np.ndindex(x.shape):
            if x[i] != self.ignore_label:
                y[i] = W[x[i]]
        return y,


def test_gradient_accumulates_and_skips_ignored_ids():
    W = chainlet.Variable(np.zeros((3, 2)))
    y = F.embed_id(np.array([[0, 2], [0, 1]], np.int32), W, ignore_label=1)
    y.grad = np.arange(8.0).reshape(2, 2, 2)
    y.backward()
    np.testing.assert_array_equal(W.grad, [[4, 6], [0, 0], [2, 3]])


def test_only_w_gets_a_gradient():
    x = chainlet.Variable(np.array([0, 1], np.int32))
    W = chainlet.Variable(np.ones((2, 2), np.float32))
    F.sum(F.embed_id(x, W)).backward()
    assert x.grad is None
    np.testing.assert_array_equal(W.grad, np.ones((2, 2)))


@pytest.mark.parametrize('x,W,kw,err,match', [
    (np.array([0, 5], np.int32), np.zeros((5, 2), np.float32), {}, ValueError,
     r'embed_id: argument x: expected ids in \[0, 5\), got 5'),
    (np.array([-1, 0], np.int32), np.zeros((5, 2), np.float32), {}, ValueError,
     r'embed_id: argument x: expected ids in \[0, 5\), got -1'),
    (np.array([-2, 0], np.int32), np.zeros((5, 2), np.float32), {'ignore_label': -1},
     ValueError, r'expected ids in \[0, 5\) or the ignore_label -1, got -2'),
    (np.array([0.0, 1.0], np.float32), np.zeros((5, 2), np.float32), {}, TypeError,
     'embed_id: argument x: expected a signed integer dtype, got float32'),
    (np.array(1, np.int32), np.zeros((5, 2), np.float32), {}, TypeError,
     r'embed_id: argument x: expected ndim >= 1, got shape \(\)'),
    (np.array([1], np.int32), np.zeros(5, np.float32), {}, TypeError,
     r'embed_id: argument W: expected ndim 2, got shape \(5,\)'),
])
def test_errors(x, W, kw, err, match):
    with pytest.raises(err, match=match):
        F.embed_id(x, W, **kw)
