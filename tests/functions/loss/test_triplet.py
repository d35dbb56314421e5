import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestTriplet(PytestFunctionTestCase):
    params = [
        {'shape': (5, 3), 'margin': 0.2, 'reduce': 'mean'},
        {'shape': (5, 3), 'margin': 1.0, 'reduce': 'no'},
        {'shape': (0, 3), 'margin': 0.2, 'reduce': 'mean'},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=1e-2, rtol=5e-2)

    def generate_inputs(self):
        while True:
            a, p, n = (np.random.uniform(-1, 1, self.shape) for _ in range(3))
            dist = ((a - p) ** 2).sum(1) - ((a - n) ** 2).sum(1) + self.margin
            if (np.abs(dist) > 0.1).all():  # no sample at the hinge
                return tuple(v.astype(self.dtype) for v in (a, p, n))

    def forward(self, inputs, device):
        return F.triplet(*inputs, margin=self.margin, reduce=self.reduce),

    def forward_expected(self, inputs):
        a, p, n = (v.astype(np.float64) for v in inputs)
        loss = np.maximum(((a - p) ** 2).sum(1) - ((a - n) ** 2).sum(1) + self.margin, 0)
        if self.reduce == 'mean':
            loss = np.asarray(loss.sum() / max(len(a), 1))
        return loss.astype(self.dtype),


def test_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match='triplet: argument margin'):
        F.triplet(x, x, x, margin=-1)
    with pytest.raises(ValueError, match='triplet: argument reduce'):
        F.triplet(x, x, x, reduce='sum')
    with pytest.raises(TypeError, match='triplet: argument negative: expected shape'):
        F.triplet(x, x, np.zeros((2, 2), np.float32))
