import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


class TestFixedBatchNormalization(PytestFunctionTestCase):
    params = [
        {'shape': (4, 3), 'param_shape': (3,), 'axis': None},
        {'shape': (2, 3, 2, 2), 'param_shape': (3,), 'axis': None},
        {'shape': (2, 3, 2), 'param_shape': (3, 2), 'axis': None},
        {'shape': (3,), 'param_shape': (), 'axis': None},
        {'shape': (2, 3, 4), 'param_shape': (3,), 'axis': (0, 2)},
        {'shape': (0, 3), 'param_shape': (3,), 'axis': None},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_inputs(self):
        p = self.param_shape
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        gamma = np.random.uniform(0.5, 1.5, p).astype(self.dtype)
        beta = np.random.uniform(-1, 1, p).astype(self.dtype)
        mean = np.random.uniform(-0.5, 0.5, p).astype(self.dtype)
        var = np.random.uniform(0.5, 1.5, p).astype(self.dtype)
        return x, gamma, beta, mean, var

    def forward(self, inputs, device):
        return F.fixed_batch_normalization(*inputs, axis=self.axis),

    def forward_expected(self, inputs):
        x, gamma, beta, mean, var = [a.astype(np.float64) for a in inputs]
        if self.axis is None:
            axes = (0,) + tuple(range(len(self.param_shape) + 1, x.ndim))
        else:
            axes = self.axis
        bshape = tuple(1 if i in axes else s for i, s in enumerate(x.shape))

        def e(a):
            return a.reshape(bshape)
        y = e(gamma) * (x - e(mean)) / np.sqrt(e(var) + 2e-5) + e(beta)
        return y.astype(self.dtype),


def test_independent_of_train_mode():
    args = (np.random.uniform(-1, 1, (3, 2)).astype(np.float32), np.ones(2, np.float32),
            np.zeros(2, np.float32), np.full(2, 0.5, np.float32), np.full(2, 4.0, np.float32))
    y1 = F.fixed_batch_normalization(*args, eps=0.0)
    with chainlet.using_config('train', False):
        y2 = F.fixed_batch_normalization(*args, eps=0.0)
    np.testing.assert_allclose(y1.array, (args[0] - 0.5) / 2)
    np.testing.assert_array_equal(y1.array, y2.array)


def test_mixed_dtypes():
    x = chainlet.Variable(np.random.uniform(-1, 1, (3, 2)).astype(np.float16))
    p = [np.ones(2, np.float32), np.zeros(2, np.float32), np.zeros(2, np.float32),
         np.ones(2, np.float32)]
    y = F.fixed_batch_normalization(x, *p)
    assert y.dtype == np.float16
    F.sum(y).backward()
    assert x.grad.dtype == np.float16


@pytest.mark.parametrize('arg,index', [('gamma', 0), ('beta', 1), ('mean', 2), ('var', 3)])
def test_bad_parameter_shape_names_argument(arg, index):
    params = [np.ones(3) for _ in range(4)]
    params[index] = np.ones(4)
    with pytest.raises(InvalidType, match=f'fixed_batch_normalization: argument {arg}: '
                                          r'expected shape \(3,\), got \(4,\)'):
        F.fixed_batch_normalization(np.zeros((2, 3)), *params)


def test_bad_parameter_dtype():
    params = [np.ones(3), np.ones(3), np.ones(3), np.ones(3, np.float32)]
    with pytest.raises(InvalidType, match='argument var: expected dtype float64'):
        F.fixed_batch_normalization(np.zeros((2, 3)), *params)
