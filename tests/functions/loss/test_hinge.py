import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestHinge(PytestFunctionTestCase):
    params = [
        {'shape': (4, 3), 'norm': 'L1', 'reduce': 'mean'},
        {'shape': (4, 3), 'norm': 'L2', 'reduce': 'mean'},
        {'shape': (3, 5), 'norm': 'L1', 'reduce': 'no'},
        {'shape': (3, 5), 'norm': 'L2', 'reduce': 'no'},
        {'shape': (0, 3), 'norm': 'L2', 'reduce': 'mean'},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape)
        # Keep 1 +- x away from the hinge at 0.
        x = np.where(np.abs(np.abs(x) - 1) < 0.1, x * 0.5, x)
        t = np.random.randint(0, self.shape[1], self.shape[:1])
        return x.astype(self.dtype), t.astype(np.int32)

    def forward(self, inputs, device):
        return F.hinge(*inputs, norm=self.norm, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = inputs
        x = x.astype(np.float64)
        s = np.ones_like(x)
        s[np.arange(len(t)), t] = -1
        h = np.maximum(0, 1 + s * x)
        loss = h if self.norm == 'L1' else h ** 2
        if self.reduce == 'mean':
            loss = np.asarray(loss.sum() / max(len(x), 1))
        return loss.astype(self.dtype),


def test_errors():
    x = np.zeros((2, 3), np.float32)
    t = np.array([0, 1], np.int32)
    with pytest.raises(ValueError, match='hinge: argument norm'):
        F.hinge(x, t, norm='L3')
    with pytest.raises(ValueError, match='hinge: argument reduce'):
        F.hinge(x, t, reduce='sum')
    with pytest.raises(ValueError, match='hinge: argument t: expected labels'):
        F.hinge(x, np.array([0, 3], np.int32))
    with pytest.raises(TypeError, match='hinge: argument t: expected shape'):
        F.hinge(x, np.array([0], np.int32))
    with pytest.raises(TypeError, match='hinge: argument x: expected ndim 2'):
        F.hinge(np.zeros(3, np.float32), t)
