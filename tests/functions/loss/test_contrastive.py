import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestContrastive(PytestFunctionTestCase):
    params = [
        {'shape': (5, 3), 'margin': 1.0, 'reduce': 'mean'},
        {'shape': (5, 3), 'margin': 2.0, 'reduce': 'no'},
        {'shape': (0, 3), 'margin': 1.0, 'reduce': 'mean'},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_backward_options.update(atol=1e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def generate_inputs(self):
        n, k = self.shape
        x0 = np.random.uniform(-1, 1, self.shape)
        # Distances well inside or outside the margin (no kink at d == margin).
        direction = np.random.normal(size=self.shape)
        direction /= np.linalg.norm(direction, axis=1, keepdims=True)
        dist = np.random.choice([0.3, 0.6, 1.5, 2.5], n)[:, None] * self.margin
        x1 = x0 + direction * dist
        y = np.random.randint(0, 2, n).astype(np.int32)
        return x0.astype(self.dtype), x1.astype(self.dtype), y

    def forward(self, inputs, device):
        return F.contrastive(*inputs, margin=self.margin, reduce=self.reduce),

    def forward_expected(self, inputs):
        x0, x1, y = inputs
        d = np.linalg.norm(x0.astype(np.float64) - x1, axis=1)
        loss = 0.5 * (y * d ** 2 + (1 - y) * np.maximum(self.margin - d, 0) ** 2)
        if self.reduce == 'mean':
            loss = np.asarray(loss.sum() / max(len(d), 1))
        return loss.astype(self.dtype),


def test_chainer_example():
    x0 = np.array([[-2.0, 3.0, 0.5], [5.0, 2.0, -0.5]], np.float32)
    x1 = np.array([[-1.0, 3.0, 1.0], [3.5, 0.5, -2.0]], np.float32)
    y = np.array([1, 0], np.int32)
    np.testing.assert_allclose(F.contrastive(x0, x1, y).array, 0.3125)
    np.testing.assert_allclose(F.contrastive(x0, x1, y, margin=3.0).array, 0.3528857, rtol=1e-6)


def test_identical_dissimilar_pair_has_finite_gradient():
    x0 = chainlet.Variable(np.ones((1, 2)))
    x1 = chainlet.Variable(np.ones((1, 2)))
    loss = F.contrastive(x0, x1, np.array([0], np.int32))
    assert float(loss.array) == 0.5
    loss.backward()
    assert np.isfinite(x0.grad).all() and np.isfinite(x1.grad).all()


def test_errors():
    x = np.zeros((2, 3), np.float32)
    y = np.array([0, 1], np.int32)
    with pytest.raises(ValueError, match='contrastive: argument margin'):
        F.contrastive(x, x, y, margin=0)
    with pytest.raises(ValueError, match='contrastive: argument reduce'):
        F.contrastive(x, x, y, reduce='sum')
    with pytest.raises(TypeError, match='contrastive: argument y: expected shape'):
        F.contrastive(x, x, np.array([0], np.int32))
    with pytest.raises(ValueError, match='contrastive: argument y: expected labels 0 or 1'):
        F.contrastive(x, x, np.array([0, 2], np.int32))
    with pytest.raises(TypeError, match='contrastive: argument x1'):
        F.contrastive(x, np.zeros((2, 4), np.float32), y)
