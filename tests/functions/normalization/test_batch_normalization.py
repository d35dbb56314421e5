import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _default_axes(x_ndim, gamma_ndim):
    return (0,) + tuple(range(gamma_ndim + 1, x_ndim))


def _bn_reference(x, gamma, beta, axes, eps):
    x64 = x.astype(np.float64)
    bshape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))
    mean = x64.mean(axis=axes, keepdims=True) if x.size else np.zeros(bshape)
    var = x64.var(axis=axes, keepdims=True) if x.size else np.zeros(bshape)
    y = (x64 - mean) / np.sqrt(var + eps) * gamma.reshape(bshape) + beta.reshape(bshape)
    return y.astype(x.dtype)


class TestBatchNormalization(PytestFunctionTestCase):
    params = [
        {'shape': (5, 3), 'param_shape': (3,), 'axis': None},
        {'shape': (3, 2, 2, 3), 'param_shape': (2,), 'axis': None},
        {'shape': (3, 2, 3, 2), 'param_shape': (2, 3), 'axis': None},
        {'shape': (6,), 'param_shape': (), 'axis': None},
        {'shape': (5, 4), 'param_shape': (4,), 'axis': 0},
        {'shape': (2, 3, 4), 'param_shape': (4,), 'axis': (0, 1)},
        {'shape': (2, 4, 3), 'param_shape': (4,), 'axis': (-1, 0)},
        {'shape': (0, 3), 'param_shape': (3,), 'axis': None},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, self.param_shape).astype(self.dtype)
        beta = np.random.uniform(-1, 1, self.param_shape).astype(self.dtype)
        return x, gamma, beta

    def _axes(self, x):
        if self.axis is None:
            return _default_axes(x.ndim, len(self.param_shape))
        axis = (self.axis,) if isinstance(self.axis, int) else self.axis
        return tuple(sorted(a % x.ndim for a in axis))

    def forward(self, inputs, device):
        x, gamma, beta = inputs
        return F.batch_normalization(x, gamma, beta, axis=self.axis),

    def forward_expected(self, inputs):
        x, gamma, beta = inputs
        return _bn_reference(x, gamma, beta, self._axes(x), 2e-5),


class TestBatchNormalizationEps(PytestFunctionTestCase):
    params = [{'eps': 0.5}]
    dtypes = (np.float64,)

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, (4, 2)), np.random.uniform(0.5, 1.5, 2),
                np.random.uniform(-1, 1, 2))

    def forward(self, inputs, device):
        return F.batch_normalization(*inputs, eps=self.eps),

    def forward_expected(self, inputs):
        return _bn_reference(*inputs, (0,), self.eps),


def _running_reference(x, mean, var, axes, decay):
    m = x.size // mean.size
    mean = decay * mean + (1 - decay) * x.mean(axis=axes)
    var = decay * var + (1 - decay) * m / max(m - 1.0, 1.0) * x.var(axis=axes)
    return mean, var


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape,axis', [
    ((4, 3), None), ((3, 2, 2, 2), None), ((3, 2, 4), (0, 1))])
def test_running_statistics_updated_in_place(dtype, shape, axis):
    c = shape[1] if axis is None else shape[-1]
    gamma, beta = np.ones(c, dtype), np.zeros(c, dtype)
    running_mean = np.random.uniform(-1, 1, c).astype(dtype)
    running_var = np.random.uniform(0.5, 1.5, c).astype(dtype)
    mean_id, var_id = id(running_mean), id(running_var)
    expected_mean = running_mean.astype(np.float64)
    expected_var = running_var.astype(np.float64)
    axes = (0,) + tuple(range(2, len(shape))) if axis is None else axis
    for _ in range(3):
        x = np.random.uniform(-2, 2, shape).astype(dtype)
        F.batch_normalization(x, gamma, beta, running_mean=running_mean,
                              running_var=running_var, decay=0.7, axis=axis)
        expected_mean, expected_var = _running_reference(
            x.astype(np.float64), expected_mean, expected_var, axes, 0.7)
    assert id(running_mean) == mean_id and id(running_var) == var_id
    assert running_mean.dtype == dtype
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(running_mean, expected_mean, rtol=tol, atol=tol)
    np.testing.assert_allclose(running_var, expected_var, rtol=tol, atol=tol)


def test_running_statistics_each_optional():
    x = np.array([[0.0], [2.0]], np.float32)
    one, zero = np.ones(1, np.float32), np.zeros(1, np.float32)
    running_var = np.ones(1, np.float32)
    F.batch_normalization(x, one, zero, running_var=running_var, decay=0.5)
    # batch variance 1, unbiased 2: 0.5 * 1 + 0.5 * 2
    np.testing.assert_allclose(running_var, [1.5])


def test_empty_batch_leaves_running_statistics():
    running_mean, running_var = np.ones(2), np.ones(2)
    y = F.batch_normalization(np.zeros((0, 2)), np.ones(2), np.zeros(2),
                              running_mean=running_mean, running_var=running_var)
    assert y.shape == (0, 2)
    np.testing.assert_array_equal(running_mean, [1, 1])
    np.testing.assert_array_equal(running_var, [1, 1])


def test_uses_batch_statistics_in_test_mode():
    # As in Chainer, the function always normalizes with the batch's statistics; the link
    # decides between batch_normalization and fixed_batch_normalization.
    x = np.random.uniform(-1, 1, (6, 3)).astype(np.float32)
    gamma, beta = np.ones(3, np.float32), np.zeros(3, np.float32)
    running_mean = np.zeros(3, np.float32)
    with chainlet.using_config('train', False):
        y = F.batch_normalization(x, gamma, beta, running_mean=running_mean,
                                  running_var=np.ones(3, np.float32))
    np.testing.assert_allclose(y.array, _bn_reference(x, gamma, beta, (0,), 2e-5), atol=1e-5)
    np.testing.assert_allclose(y.array.mean(axis=0), 0, atol=1e-5)
    np.testing.assert_allclose(running_mean, 0.1 * x.mean(axis=0), rtol=1e-5)


def test_mixed_dtypes_compute_in_wider_dtype():
    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float16)
    gamma = np.random.uniform(0.5, 1.5, 3).astype(np.float32)
    beta = np.random.uniform(-1, 1, 3).astype(np.float32)
    xv, gv = chainlet.Variable(x), chainlet.Variable(gamma)
    y = F.batch_normalization(xv, gv, beta)
    assert y.dtype == np.float16
    expected = _bn_reference(x.astype(np.float32), gamma, beta, (0,), 2e-5)
    np.testing.assert_allclose(y.array, expected, atol=2e-3, rtol=2e-3)
    F.sum(y).backward()
    assert xv.grad.dtype == np.float16 and gv.grad.dtype == np.float32


def test_third_order_gradient_is_exact():
    # The double-backward node recomputes the statistics differentiably, so a third
    # differentiation is exact too: check the gradient of the second-order gradient.
    x0 = np.random.uniform(-1, 1, (4, 2))
    gamma0 = np.random.uniform(0.5, 1.5, 2)
    beta0 = np.random.uniform(-1, 1, 2)
    gy0 = np.random.standard_normal((4, 2))
    ggx0 = np.random.standard_normal((4, 2))

    def second(x, gamma, gy, ggx):
        y = F.batch_normalization(x, gamma, beta0)
        gx, = chainlet.grad([y], [x], [gy], enable_double_backprop=True)
        g2 = chainlet.grad([gx], [x, gamma], [ggx], enable_double_backprop=True)
        return tuple(g2)

    gradient_check.check_backward(second, (x0, gamma0, gy0, ggx0),
                                  (np.random.standard_normal((4, 2)),
                                   np.random.standard_normal(2)),
                                  atol=1e-5, rtol=1e-4)


def test_double_backward_with_partial_output_grads():
    # Only gbeta's (or only ggamma's) gradient reaches the grad node.
    x = chainlet.Variable(np.random.uniform(-1, 1, (5, 2)))
    gamma = chainlet.Variable(np.random.uniform(0.5, 1.5, 2))
    beta = chainlet.Variable(np.random.uniform(-1, 1, 2))
    gy = chainlet.Variable(np.random.standard_normal((5, 2)))
    y = F.batch_normalization(x, gamma, beta)
    ggamma, gbeta = chainlet.grad([y], [gamma, beta], [gy], enable_double_backprop=True)
    g_gy, = chainlet.grad([F.sum(gbeta)], [gy])
    np.testing.assert_allclose(g_gy.array, np.ones((5, 2)))
    g_x, = chainlet.grad([F.sum(ggamma)], [x])
    assert g_x.shape == (5, 2)


def test_single_sample_warns():
    with pytest.warns(UserWarning, match='batch_normalization'):
        y = F.batch_normalization(np.ones((1, 3), np.float32), np.ones(3, np.float32),
                                  np.zeros(3, np.float32))
    np.testing.assert_array_equal(y.array, np.zeros((1, 3), np.float32))


def test_no_warning_for_ordinary_batch():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        F.batch_normalization(np.ones((2, 3)), np.ones(3), np.zeros(3))


@pytest.mark.parametrize('gamma_shape,beta_shape,arg', [
    ((4,), (3,), 'gamma'), ((3,), (4,), 'beta'), ((3, 1), (3, 1), 'gamma')])
def test_bad_parameter_shapes(gamma_shape, beta_shape, arg):
    x = np.zeros((2, 3, 4))
    with pytest.raises(InvalidType, match=f'batch_normalization: argument {arg}: expected '):
        F.batch_normalization(x, np.ones(gamma_shape), np.zeros(beta_shape))


def test_bad_dtypes_and_ndim():
    with pytest.raises(InvalidType, match='batch_normalization: argument x: expected a float'):
        F.batch_normalization(np.zeros((2, 3), np.int32), np.ones(3), np.zeros(3))
    with pytest.raises(InvalidType, match='argument beta: expected dtype float64'):
        F.batch_normalization(np.zeros((2, 3)), np.ones(3), np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match='argument x: expected ndim >= 3'):
        F.batch_normalization(np.zeros((2, 3)), np.ones((2, 3)), np.zeros((2, 3)))
    with pytest.raises(InvalidType, match='argument running_mean: expected shape'):
        F.batch_normalization(np.zeros((2, 3)), np.ones(3), np.zeros(3),
                              running_mean=np.zeros(4), running_var=np.ones(3))


def test_bad_axis():
    x, g, b = np.zeros((2, 3)), np.ones(3), np.zeros(3)
    with pytest.raises(ValueError, match='batch_normalization: argument axis: expected values'):
        F.batch_normalization(x, g, b, axis=2)
    with pytest.raises(ValueError, match='argument axis: duplicate'):
        F.batch_normalization(x, np.ones(()), np.zeros(()), axis=(0, -2))
    with pytest.raises(TypeError, match='batch_normalization: argument axis: expected None'):
        F.batch_normalization(x, g, b, axis=0.5)
    with pytest.raises(ValueError, match='argument decay'):
        F.batch_normalization(x, g, b, decay=1.5)
