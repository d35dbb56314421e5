import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestNormalize(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'axis': 1}, {'shape': (2, 3, 2), 'axis': (1, 2)},
              {'shape': (4,), 'axis': 0}, {'shape': (2, 3), 'axis': -2},
              {'shape': (0, 3), 'axis': 1}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=2e-3, rtol=2e-3)

    def generate_inputs(self):
        x = np.random.uniform(0.2, 1, self.shape) * np.random.choice([-1, 1], self.shape)
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        return F.normalize(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        x = inputs[0].astype(np.float64)
        norm = np.sqrt((x * x).sum(axis=self.axis, keepdims=True)) + 1e-5
        return (x / norm).astype(self.dtype),


class TestNormalizeZeroVector(PytestFunctionTestCase):
    # A zero row: y = x / (|x| + eps) near it, so the gradient is gy / eps and stays finite.
    # Finite differences across the kink of |x| are only accurate to O(step); the second
    # derivative does not exist there.
    dtypes = (np.float64,)
    params = [{'eps': 0.5}]
    skip_double_backward_test = True

    def setup(self):
        self.check_backward_options.update(atol=1e-2, rtol=1e-2)

    def generate_inputs(self):
        x = np.random.uniform(0.2, 1, (3, 2))
        x[1] = 0
        return x,

    def forward(self, inputs, device):
        return F.normalize(inputs[0], eps=self.eps),

    def forward_expected(self, inputs):
        x = inputs[0]
        return x / (np.sqrt((x * x).sum(axis=1, keepdims=True)) + self.eps),


def test_zero_vector_gradient_is_finite():
    x = chainlet.Variable(np.zeros((1, 3)))
    y = F.normalize(x)
    y.grad = np.ones((1, 3))
    y.backward(enable_double_backprop=True)
    np.testing.assert_allclose(x.grad, np.full((1, 3), 1e5))


def test_output_has_unit_norm():
    x = np.random.uniform(-1, 1, (4, 5)).astype(np.float32)
    y = F.normalize(x, eps=0.0).array
    np.testing.assert_allclose(np.linalg.norm(y, axis=1), 1, rtol=1e-6)


def test_bad_arguments():
    with pytest.raises(InvalidType, match='normalize: argument x: expected a floating-point'):
        F.normalize(np.zeros((2, 3), np.int32))
    with pytest.raises(ValueError, match='normalize: argument axis'):
        F.normalize(np.zeros((2, 3)), axis=2)


@pytest.mark.parametrize('eps', [2e-5, 1e-4, 1e-3])
def test_float16_zero_vector_gradient_is_finite(eps):
    # The gradient at a zero vector is gy / eps, as in float32; float16's eps ** 2 underflowed
    # to 0 (for eps below 2e-4) and 0 / 0 made it NaN.
    grads = {}
    for dtype in (np.float16, np.float32):
        x = chainlet.Variable(np.zeros((2, 3), dtype))
        y = F.normalize(x, eps=eps)
        y.grad = np.ones_like(y.array)
        y.backward()
        assert x.grad.dtype == dtype
        grads[dtype] = x.grad
    assert np.isfinite(grads[np.float16]).all()
    np.testing.assert_allclose(grads[np.float16].astype(np.float32), grads[np.float32],
                               rtol=1e-3)


def test_float16_large_vector():
    # squares of 300 and 400 overflow float16; the norm is taken in float32
    x = chainlet.Variable(np.array([[300.0, 400.0]], np.float16))
    y = F.normalize(x)
    y.grad = np.ones_like(y.array)
    y.backward()
    np.testing.assert_allclose(y.array.astype(np.float32), [[0.6, 0.8]], rtol=1e-3)
    # d/dx of x / |x|, times ones: (1 - y * sum(y)) / |x|
    np.testing.assert_allclose(x.grad.astype(np.float32), [[(1 - 0.6 * 1.4) / 500,
                                                            (1 - 0.8 * 1.4) / 500]], rtol=1e-2)


def test_float16_zero_vector_gradient_with_default_eps_overflows_not_nan():
    # gy / eps = 1e5 with the default eps is past float16's 65504: inf, as any float16 result
    # that large, but never NaN.
    x = chainlet.Variable(np.zeros((2, 3), np.float16))
    y = F.normalize(x)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert np.isposinf(x.grad).all()
