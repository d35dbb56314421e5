import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _reference(x, groups, gamma, beta, eps):
    n, c = x.shape[:2]
    xg = x.reshape(n, groups, x.size // max(n * groups, 1))
    if xg.size:
        mean = xg.mean(axis=2, keepdims=True)
        var = xg.var(axis=2, keepdims=True)
    else:
        mean = var = 0
    y = ((xg - mean) / np.sqrt(var + eps)).reshape(x.shape)
    pshape = (1, c) + (1,) * (x.ndim - 2)
    return y * gamma.reshape(pshape) + beta.reshape(pshape)


class TestGroupNormalization(PytestFunctionTestCase):
    params = [{'shape': (2, 4, 3), 'groups': 2}, {'shape': (2, 6, 2, 2), 'groups': 3},
              {'shape': (3, 4), 'groups': 2}, {'shape': (2, 3, 2), 'groups': 1},
              {'shape': (2, 3, 4), 'groups': 3}, {'shape': (0, 4, 2), 'groups': 2}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        c = self.shape[1]
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(0.5, 1.5, c).astype(self.dtype),
                np.random.uniform(-1, 1, c).astype(self.dtype))

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return F.group_normalization(x, self.groups, gamma, beta),

    def forward_expected(self, inputs):
        x, gamma, beta = [a.astype(np.float64) for a in inputs]
        return _reference(x, self.groups, gamma, beta, 1e-5).astype(self.dtype),


def test_groups_equal_channels_is_instance_normalization():
    x = np.random.uniform(-1, 1, (2, 3, 4))
    y = F.group_normalization(x, 3, np.ones(3), np.zeros(3), eps=0.0).array
    np.testing.assert_allclose(y.mean(axis=2), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(axis=2), 1, rtol=1e-12)


def test_bad_arguments():
    x = np.zeros((2, 4, 3), np.float32)
    one, zero = np.ones(4, np.float32), np.zeros(4, np.float32)
    with pytest.raises(ValueError, match='group_normalization: argument groups: expected a '
                                         'divisor of the number of channels 4, got 3'):
        F.group_normalization(x, 3, one, zero)
    with pytest.raises(TypeError, match='group_normalization: argument groups: expected an int'):
        F.group_normalization(x, 2.0, one, zero)
    with pytest.raises(ValueError, match='argument groups: expected a positive int'):
        F.group_normalization(x, 0, one, zero)
    with pytest.raises(InvalidType, match=r'group_normalization: argument gamma: expected '
                                          r'shape \(4,\), got \(3,\)'):
        F.group_normalization(x, 2, np.ones(3, np.float32), zero)
    with pytest.raises(InvalidType, match='argument beta: expected dtype float32'):
        F.group_normalization(x, 2, one, np.zeros(4))
    with pytest.raises(InvalidType, match='argument x: expected ndim >= 2'):
        F.group_normalization(np.zeros(4, np.float32), 2, one, zero)
