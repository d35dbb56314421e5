"""fft, ifft: values against numpy.fft, gradients (the transform is its own adjoint's pattern)."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestFFT(PytestFunctionTestCase):
    params = [{'shape': (4,), 'method': 'fft'}, {'shape': (2, 3), 'method': 'ifft'},
              {'shape': (2, 3, 5), 'method': 'fft'}, {'shape': (0, 3), 'method': 'ifft'}]

    def setup(self):
        self.check_backward_options.update(eps=2.0 ** -2, atol=1e-2, rtol=1e-3)
        self.check_double_backward_options.update(atol=1e-2, rtol=1e-3)

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        return getattr(F, self.method)(inputs)

    def forward_expected(self, inputs):
        r, i = inputs
        y = getattr(np.fft, self.method)(r.astype(np.float64) + 1j * i)
        return y.real.astype(r.dtype), y.imag.astype(r.dtype)


def test_ifft_inverts_fft():
    r, i = np.random.rand(2, 8), np.random.rand(2, 8)
    yr, yi = F.ifft(F.fft((r, i)))
    np.testing.assert_allclose(yr.array, r, atol=1e-12)
    np.testing.assert_allclose(yi.array, i, atol=1e-12)


def test_gradient_of_one_output_only():
    r = chainlet.Variable(np.random.rand(5))
    i = chainlet.Variable(np.random.rand(5))
    yr, _ = F.fft((r, i))
    F.sum(yr).backward()
    # sum_k Re(y_k) = n Re(x_0): only the first element has a gradient.
    np.testing.assert_allclose(r.grad, [5, 0, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(i.grad, 0, atol=1e-12)


def test_argument_errors():
    with pytest.raises(TypeError, match='fft: argument imag'):
        F.fft((np.zeros(3), np.zeros(4)))
    with pytest.raises(TypeError, match='fft: argument imag'):
        F.fft((np.zeros(3), np.zeros(3, np.float32)))
    with pytest.raises(TypeError, match='ifft: argument real'):
        F.ifft((np.zeros(()), np.zeros(())))
    with pytest.raises(TypeError, match='fft: argument real'):
        F.fft((np.zeros(3, np.int32), np.zeros(3, np.int32)))
