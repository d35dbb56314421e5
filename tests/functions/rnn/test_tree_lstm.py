import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


class TestTreeLSTM(PytestFunctionTestCase):
    params = [{'c_dim': 2, 'n': 1, 'batch': 3}, {'c_dim': 3, 'n': 2, 'batch': 2},
              {'c_dim': 0, 'n': 4, 'batch': 5}, {'c_dim': 4, 'n': 1, 'batch': 0},
              {'c_dim': 2, 'n': 3, 'batch': 2, 'extra': (3,)}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        extra = getattr(self, 'extra', ())
        c_shape = (self.batch, self.c_dim) + extra
        x_shape = (self.batch, self.c_dim * (self.n + 3)) + extra
        cs = [np.random.uniform(-1, 1, c_shape).astype(self.dtype) for _ in range(self.n)]
        return tuple(cs) + (np.random.uniform(-1, 1, x_shape).astype(self.dtype),)

    def forward(self, inputs, device):
        return F.tree_lstm(*inputs)

    def forward_expected(self, inputs):
        cs, x = inputs[:-1], inputs[-1].astype(np.float64)
        blocks = np.split(x, 3 + len(cs), axis=1)
        a, i, o, fs = blocks[0], blocks[1], blocks[2], blocks[3:]
        c = np.tanh(a) * _sigmoid(i) + sum(_sigmoid(f) * cp for f, cp in zip(fs, cs))
        h = _sigmoid(o) * np.tanh(c)
        return c.astype(x.dtype).astype(self.dtype), h.astype(self.dtype)


def test_tree_lstm_gradient_of_h_only():
    c = np.random.uniform(-1, 1, (2, 3))
    x = np.random.uniform(-1, 1, (2, 12))
    _, h = F.tree_lstm(c, x)
    assert h.shape == (2, 3)


def test_tree_lstm_rejects_wrong_shapes():
    with pytest.raises(InvalidType, match='tree_lstm: expected at least 2 inputs'):
        F.tree_lstm(np.zeros((2, 3)))
    with pytest.raises(InvalidType, match='tree_lstm: argument c_2'):
        F.tree_lstm(np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 15)))
    with pytest.raises(InvalidType, match='tree_lstm: argument c_1'):
        F.tree_lstm(np.zeros((2, 3), np.float32), np.zeros((2, 12)))
