import zlib

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _softmax(z, axis):
    z = z - z.max(axis=axis, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=axis, keepdims=True)


class TestGumbelSoftmax(PytestFunctionTestCase):
    # The Gumbel noise comes from NumPy's global state: reseed before each call so that the
    # repeated evaluations of the gradient check see the same noise.
    params = [{'shape': (3, 4), 'axis': 1, 'tau': 1.0},
              {'shape': (2, 3, 2), 'axis': -1, 'tau': 0.5},
              {'shape': (4,), 'axis': 0, 'tau': 2.0}, {'shape': (0, 3), 'axis': 1, 'tau': 1.0}]

    def setup(self):
        self.seed = zlib.crc32(repr(self.shape).encode())
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)

    def generate_inputs(self):
        return np.log(np.random.uniform(0.2, 1, self.shape)).astype(self.dtype),

    def forward(self, inputs, device):
        np.random.seed(self.seed)
        if device.xp is np:
            return F.gumbel_softmax(inputs[0], tau=self.tau, axis=self.axis),
        # cupy.random is a stream of its own: draw NumPy's noise and send it to the GPU, so
        # that the result can be compared with forward_expected.
        random = device.xp.random
        draw = random.gumbel
        random.gumbel = lambda size: device.send(np.random.gumbel(size=size))
        try:
            return F.gumbel_softmax(inputs[0], tau=self.tau, axis=self.axis),
        finally:
            random.gumbel = draw

    def forward_expected(self, inputs):
        np.random.seed(self.seed)
        log_pi = inputs[0]
        g = np.random.gumbel(size=log_pi.shape).astype(log_pi.dtype)
        z = (log_pi + g).astype(np.float64) / self.tau
        return _softmax(z, self.axis).astype(self.dtype),


def test_sums_to_one_and_sharpens_with_low_temperature():
    np.random.seed(0)
    log_pi = np.log(np.full((50, 4), 0.25, np.float32))
    y = F.gumbel_softmax(log_pi, tau=0.01).array
    np.testing.assert_allclose(y.sum(axis=1), 1, rtol=1e-5)
    assert (y.max(axis=1) > 0.99).mean() > 0.8


def test_no_overflow_for_large_logits():
    np.random.seed(0)
    log_pi = np.array([[1e4, 0.0, -1e4]], np.float32)
    y = F.gumbel_softmax(log_pi, tau=0.1).array
    np.testing.assert_allclose(y, [[1, 0, 0]], atol=1e-6)


def test_temperature_as_variable_is_differentiable():
    np.random.seed(0)
    tau = chainlet.Variable(np.array(0.5, np.float32))
    y = F.gumbel_softmax(np.log(np.array([[0.3, 0.7]], np.float32)), tau=tau)
    F.sum(y[:, 0]).backward()
    assert tau.grad is not None and tau.grad.shape == ()


def test_zero_dim_gives_one():
    y = F.gumbel_softmax(np.array(0.3, np.float32))
    assert y.shape == () and y.dtype == np.float32 and y.array == 1


def test_bad_arguments():
    with pytest.raises(ValueError, match='gumbel_softmax: argument tau: expected a positive'):
        F.gumbel_softmax(np.zeros((2, 2)), tau=0.0)
    with pytest.raises(ValueError, match='gumbel_softmax: argument axis'):
        F.gumbel_softmax(np.zeros((2, 2)), axis=2)
    with pytest.raises(InvalidType, match='gumbel_softmax: argument log_pi: expected a float'):
        F.gumbel_softmax(np.zeros((2, 2), np.int32))
