"""arctanh, fmod, batch_l2_norm_squared, bias, scale."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

from math_cases import UnaryCase


class TestArctanh(UnaryCase):
    func, ref = staticmethod(F.arctanh), staticmethod(np.arctanh)
    low, high = -0.9, 0.9


class TestFmod(PytestFunctionTestCase):
    params = [{'xs': (3, 2), 'ds': (3, 2)}, {'xs': (), 'ds': ()}, {'xs': (3, 2), 'ds': (2,)}]

    def setup(self):
        self.check_forward_options.update(atol=1e-7, rtol=1e-7)

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.xs)
        d = np.random.choice([-1, 1], self.ds) * np.random.uniform(0.3, 1, self.ds)
        # Keep x / d away from the integers, where the remainder jumps.
        frac = np.modf(x / d)[0]
        x = np.where(np.abs(np.abs(frac) - 0.5) > 0.4, d * 0.5, x)
        return x.astype(self.dtype), d.astype(self.dtype)

    def forward(self, inputs, device):
        return F.fmod(*inputs),

    def forward_expected(self, inputs):
        return np.fmod(*inputs),


class TestBatchL2NormSquared(PytestFunctionTestCase):
    params = [{'shape': (4, 3, 5)}, {'shape': (4, 15)}, {'shape': (0, 2)}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=1e-3, rtol=1e-3)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.batch_l2_norm_squared(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        x64 = x.astype(np.float64).reshape(len(x), int(np.prod(x.shape[1:])))
        return (x64 ** 2).sum(axis=1).astype(x.dtype),


class TestBiasScale(PytestFunctionTestCase):
    params = [{'func': 'bias', 'ys': (2,), 'axis': 1}, {'func': 'scale', 'ys': (2,), 'axis': 1},
              {'func': 'scale', 'ys': (3, 2), 'axis': 0}, {'func': 'bias', 'ys': (), 'axis': 1}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (3, 2, 3)).astype(self.dtype),
                np.random.uniform(-1, 1, self.ys).astype(self.dtype))

    def forward(self, inputs, device):
        return getattr(F, self.func)(*inputs, self.axis),

    def forward_expected(self, inputs):
        x, y = inputs
        y = y.reshape((1,) * self.axis + y.shape + (1,) * (3 - self.axis - y.ndim))
        return (x + y if self.func == 'bias' else x * y),


@pytest.mark.parametrize('func', [F.bias, F.scale])
def test_bias_scale_shape_mismatch(func):
    x, y = np.zeros((3, 2, 3), np.float32), np.zeros(2, np.float32)
    with pytest.raises(ValueError, match=f'{func.__name__}: argument y'):
        func(x, y, 0)
    with chainlet.using_config('debug', True):
        with pytest.raises(AssertionError, match=f'{func.__name__}: argument y'):
            func(x, y, 0)


def test_batch_l2_norm_squared_needs_two_axes():
    with pytest.raises(TypeError, match='batch_l2_norm_squared: argument x: expected ndim >= 2'):
        F.batch_l2_norm_squared(np.zeros(4, np.float32))


def test_fmod_errors():
    with pytest.raises(TypeError, match='fmod: argument divisor'):
        F.fmod(np.ones(2, np.float32), np.ones(2))
    with pytest.raises(TypeError, match='fmod: arguments cannot be broadcast'):
        F.fmod(np.ones(2), np.ones(3))


def test_arctanh_rejects_integers():
    with pytest.raises(TypeError, match='arctanh: argument x'):
        F.arctanh(np.arange(3))
