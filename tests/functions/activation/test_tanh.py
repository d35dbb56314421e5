import numpy as np

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestTanh(PytestFunctionTestCase):
    params = [{'shape': (3, 4)}, {'shape': ()}, {'shape': (0, 2)}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.tanh(inputs[0]),

    def forward_expected(self, inputs):
        return np.tanh(inputs[0]),
