import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _reference(x, t, normalize, reduce):
    x = x.astype(np.float64)
    p = 1 / (1 + np.exp(-x))
    loss = -(t * np.log(p) + (1 - t) * np.log(1 - p))
    loss = np.where(t == -1, 0, loss)
    if reduce == 'no':
        return loss
    count = (t != -1).sum() if normalize else (len(x) if x.ndim else 1)
    return np.asarray(loss.sum() / max(count, 1))


class TestSigmoidCrossEntropy(PytestFunctionTestCase):
    params = [
        {'shape': (4, 3), 'normalize': True, 'reduce': 'mean'},
        {'shape': (4, 3), 'normalize': False, 'reduce': 'mean'},
        {'shape': (2, 3, 2), 'normalize': True, 'reduce': 'no'},
        {'shape': (), 'normalize': True, 'reduce': 'mean'},
        {'shape': (0, 3), 'normalize': True, 'reduce': 'mean'},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def generate_inputs(self):
        x = np.random.uniform(-3, 3, self.shape).astype(self.dtype)
        t = np.random.randint(-1, 2, self.shape).astype(np.int32)
        return x, t

    def forward(self, inputs, device):
        return F.sigmoid_cross_entropy(*inputs, normalize=self.normalize, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, t = inputs
        return np.asarray(_reference(x, t, self.normalize, self.reduce), self.dtype),


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_stable_for_large_scores(dtype):
    x = chainlet.Variable(np.array([1e4, -1e4, 1e4, -1e4], dtype))
    t = np.array([1, 0, 0, 1], np.int32)
    loss = F.sigmoid_cross_entropy(x, t, reduce='no')
    np.testing.assert_allclose(loss.array, [0, 0, 1e4, 1e4], rtol=1e-3)
    loss.sum().backward()
    np.testing.assert_allclose(x.grad, [0, 0, 1, -1])


def test_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(TypeError, match='sigmoid_cross_entropy: argument t'):
        F.sigmoid_cross_entropy(x, np.zeros((2, 3), np.float32))
    with pytest.raises(TypeError, match='sigmoid_cross_entropy: argument t: expected shape'):
        F.sigmoid_cross_entropy(x, np.zeros((2,), np.int32))
    with pytest.raises(ValueError, match='sigmoid_cross_entropy: argument reduce'):
        F.sigmoid_cross_entropy(x, np.zeros((2, 3), np.int32), reduce='sum')


@pytest.mark.parametrize('bad', [2, 99, -5])
def test_labels_other_than_0_1_and_ignore_are_rejected(bad):
    # Issue 13, item 6: 2, 99 and -5 were silently read as label 0.
    t = np.array([0, 1, -1, bad], np.int32)
    with pytest.raises(ValueError, match=rf'sigmoid_cross_entropy: argument t: expected '
                       rf'labels 0 or 1 or ignore_label -1, got {bad}'):
        F.sigmoid_cross_entropy(np.zeros(4, np.float32), t)
    with pytest.raises(ValueError):
        F.sigmoid_cross_entropy(np.zeros(4, np.float32), t, reduce='no')
