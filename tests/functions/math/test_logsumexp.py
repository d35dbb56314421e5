"""logsumexp: values, axes, keepdims, and numerical stability at |x| ~ 1e4."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _reference(x, axis, keepdims):
    x = x.astype(np.float64)
    m = np.amax(x, axis=axis, keepdims=True)
    y = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return y if keepdims else np.squeeze(y, axis=axis) if axis is not None else y.reshape(())


class TestLogSumExp(PytestFunctionTestCase):
    params = [{'shape': (3, 4), 'axis': None, 'keepdims': False},
              {'shape': (3, 4), 'axis': 1, 'keepdims': False},
              {'shape': (3, 4), 'axis': 0, 'keepdims': True},
              {'shape': (2, 3, 2), 'axis': (0, 2), 'keepdims': False},
              {'shape': (2, 3, 2), 'axis': (-1, 1), 'keepdims': True},
              {'shape': (), 'axis': None, 'keepdims': False},
              {'shape': (0, 3), 'axis': 1, 'keepdims': False}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.logsumexp(inputs[0], axis=self.axis, keepdims=self.keepdims),

    def forward_expected(self, inputs):
        return np.asarray(_reference(inputs[0], self.axis, self.keepdims), self.dtype),


class TestLogSumExpLarge(PytestFunctionTestCase):
    """Inputs of magnitude 1e4: exp would overflow without the max shift."""

    params = [{'shape': (2, 3), 'axis': 1, 'offset': 1e4},
              {'shape': (2, 3), 'axis': None, 'offset': -1e4}]
    dtypes = (np.float32, np.float64)

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape) + self.offset).astype(self.dtype),

    def setup(self):
        # Relative to outputs of 1e4, one float32 ulp is about 1e-3.
        if self.dtype == np.float32:
            self.check_forward_options.update(atol=2e-3)
            self.check_backward_options.update(atol=2e-2, eps=1e-1)
            self.check_double_backward_options.update(atol=2e-2, eps=1e-1)

    def forward(self, inputs, device):
        return F.logsumexp(inputs[0], axis=self.axis),

    def forward_expected(self, inputs):
        return np.asarray(_reference(inputs[0], self.axis, False), self.dtype),


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('scale', [1e4, -1e4])
def test_stable_for_large_inputs(dtype, scale):
    x = chainlet.Variable(np.array([[1.0, 1.0, 0.5], [-1.0, 0.0, 1.0]], dtype) * scale)
    y = F.logsumexp(x, axis=1)
    assert y.dtype == dtype
    assert np.all(np.isfinite(y.array))
    expected = _reference(x.array, 1, False)
    np.testing.assert_allclose(y.array.astype(np.float64), expected, rtol=1e-3)
    y.grad = np.ones(2, dtype)
    y.backward()
    assert np.all(np.isfinite(x.grad))
    assert np.all((x.grad >= 0) & (x.grad <= 1))
    if dtype != np.float16:
        # In float16, y ~ 1e4 is rounded to a multiple of 8, so exp(x - y) is only coarse.
        np.testing.assert_allclose(x.grad.sum(axis=1), [1.0, 1.0], rtol=1e-2)


def test_double_backward_is_finite_for_large_inputs():
    x = chainlet.Variable(np.array([1e4, 1e4 - 1.0, -1e4]))
    y = F.logsumexp(x)
    gx, = chainlet.grad([y], [x], enable_double_backprop=True)
    ggx, = chainlet.grad([gx[0]], [x])
    assert np.all(np.isfinite(ggx.array))
    p = np.exp(x.array - y.array)
    np.testing.assert_allclose(ggx.array, p[0] * (np.eye(3)[0] - p), atol=1e-12)


def test_minus_inf_rows_and_empty_reductions():
    x = np.array([[-np.inf, -np.inf], [0.0, -np.inf]])
    np.testing.assert_array_equal(F.logsumexp(x, axis=1).array, [-np.inf, 0.0])
    y = F.logsumexp(np.zeros((2, 0)), axis=1)
    np.testing.assert_array_equal(y.array, [-np.inf, -np.inf])
    assert F.logsumexp(np.zeros((2, 0)), axis=1, keepdims=True).shape == (2, 1)


def test_bad_arguments():
    with pytest.raises(TypeError, match='logsumexp: argument x'):
        F.logsumexp(np.arange(3))
    with pytest.raises(ValueError, match='logsumexp: argument axis'):
        F.logsumexp(np.ones(3), axis=1)
    with pytest.raises(TypeError, match='logsumexp: argument axis: expected None'):
        F.logsumexp(np.ones(3), axis=0.5)


@pytest.mark.parametrize('dtype, base, step', [(np.float16, 1e3, 0.5), (np.float32, 1e6, 0.0625)])
@pytest.mark.parametrize('axis', [1, None])
def test_gradient_is_the_exact_softmax_at_large_logits(dtype, base, step, axis):
    # Issue 13, item 3: the gradient was exp(x - y) with y rounded to the output dtype; one ulp
    # of y near 1e3 (float16) or 1e6 (float32) moved every entry (rows summed to 0.92 or 1.3).
    x = chainlet.Variable((base + np.arange(16).reshape(2, 8) * step).astype(dtype))
    y = F.logsumexp(x, axis=axis)
    y.grad = np.ones(y.shape, dtype)
    y.backward()
    x64 = x.array.astype(np.float64)
    e = np.exp(x64 - np.amax(x64, axis=axis, keepdims=True))
    expected = e / e.sum(axis=axis, keepdims=True)
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(x.grad.astype(np.float64), expected, atol=tol, rtol=0)
    np.testing.assert_allclose(x.grad.astype(np.float64).sum(axis=axis), 1.0, atol=tol * 4)


def test_second_order_gradient_at_large_logits():
    # The double backward of the shifted form is the softmax Jacobian, large inputs included.
    x = chainlet.Variable((1e6 + np.array([0.0, 0.5, 1.0])).astype(np.float32))
    gx, = chainlet.grad([F.logsumexp(x)], [x], enable_double_backprop=True)
    w = np.array([1.0, -2.0, 0.5], np.float32)
    ggx, = chainlet.grad([F.sum(gx * w)], [x])
    x64 = x.array.astype(np.float64)
    p = np.exp(x64 - x64.max())
    p /= p.sum()
    np.testing.assert_allclose(ggx.array, p * w - p * (p @ w), atol=1e-6)


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_row_of_only_minus_inf_has_zero_gradient(dtype):
    # A fully masked row: y = -inf, and its entries get no gradient (not NaN); the other rows
    # are unaffected.
    x = chainlet.Variable(np.array([[-np.inf, -np.inf], [0.0, 1.0]], dtype))
    y = F.logsumexp(x, axis=1)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert y.array[0] == -np.inf
    np.testing.assert_array_equal(x.grad[0], [0, 0])
    e = np.exp([0.0, 1.0])
    np.testing.assert_allclose(x.grad[1].astype(np.float64), e / e.sum(),
                               rtol=1e-3 if dtype == np.float16 else 1e-6)


def test_row_of_only_minus_inf_double_backward():
    x = chainlet.Variable(np.array([[-np.inf, -np.inf], [0.0, 1.0]], np.float32))
    gx, = chainlet.grad([F.sum(F.logsumexp(x, axis=1))], [x], enable_double_backprop=True)
    ggx, = chainlet.grad([F.sum(gx * np.array([[1.0, 2.0], [1.0, 2.0]], np.float32))], [x])
    assert np.isfinite(ggx.array).all()
