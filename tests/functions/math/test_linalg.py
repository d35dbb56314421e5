"""inv, batch_inv, cholesky: values against numpy.linalg, gradients, argument errors."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestInv(PytestFunctionTestCase):
    params = [{'shape': (1, 1), 'batch': False}, {'shape': (4, 4), 'batch': False},
              {'shape': (3, 4, 4), 'batch': True}, {'shape': (0, 2, 2), 'batch': True}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=1e-3, rtol=1e-3)
            self.check_backward_options.update(atol=5e-3, rtol=5e-3)
            self.check_double_backward_options.update(atol=1e-2, rtol=1e-2)

    def generate_inputs(self):
        x = np.random.uniform(-0.05, 0.05, self.shape) + np.eye(self.shape[-1])
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        return (F.batch_inv if self.batch else F.inv)(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.linalg.inv(x.astype(np.float64)).astype(x.dtype),


class TestCholesky(PytestFunctionTestCase):
    params = [{'n': 1}, {'n': 4}]
    dtypes = (np.float32, np.float64)

    def setup(self):
        self.check_forward_options.update(atol=1e-4, rtol=1e-4)
        self.check_backward_options.update(atol=1e-3, rtol=1e-3, eps=1e-4)
        self.check_double_backward_options.update(atol=1e-3, rtol=1e-3, eps=1e-4)

    def generate_inputs(self):
        m = np.random.uniform(-1, 1, (self.n, self.n))
        return (m @ m.T + self.n * np.eye(self.n)).astype(self.dtype),

    def forward(self, inputs, device):
        a, = inputs
        # The gradient is the symmetric one: differentiate through a symmetrisation.
        return F.cholesky(0.5 * (a + a.T)),

    def forward_expected(self, inputs):
        a, = inputs
        return np.linalg.cholesky(0.5 * (a + a.T)).astype(a.dtype),


def test_inv_times_input_is_identity():
    x = np.random.rand(5, 5) + 5 * np.eye(5)
    np.testing.assert_allclose(F.matmul(x, F.inv(x)).array, np.eye(5), atol=1e-12)


def test_singular_matrix_raises_value_error():
    with pytest.raises(ValueError):
        F.inv(np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError):
        F.cholesky(-np.eye(2))


@pytest.mark.parametrize('func, shape, arg', [
    (F.inv, (1, 2, 2), 'ndim 2'), (F.inv, (1, 2), 'square'),
    (F.batch_inv, (2, 2), 'ndim 3'), (F.batch_inv, (2, 1, 2), 'square'),
    (F.cholesky, (2, 3), 'square'), (F.cholesky, (2,), 'ndim 2')])
def test_shape_errors(func, shape, arg):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument a: expected .*{arg}'):
        func(np.zeros(shape, np.float32))


def test_cholesky_rejects_float16():
    with pytest.raises(TypeError, match='cholesky: argument a'):
        F.cholesky(np.eye(2, dtype=np.float16))


class TestDet(PytestFunctionTestCase):
    params = [{'shape': (3, 3), 'batch': False}, {'shape': (1, 1), 'batch': False},
              {'shape': (4, 3, 3), 'batch': True}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(dtype=np.float64, atol=5e-3, rtol=1e-3)
            self.check_double_backward_options.update(dtype=np.float64, atol=1e-2, rtol=1e-2)

    def generate_inputs(self):
        x = np.random.uniform(-0.3, 0.3, self.shape) + np.eye(self.shape[-1])
        return x.astype(self.dtype),

    def forward(self, inputs, device):
        return (F.batch_det if self.batch else F.det)(inputs[0]),

    def forward_expected(self, inputs):
        x, = inputs
        return np.asarray(np.linalg.det(x.astype(np.float64))).astype(x.dtype),


def test_det_of_product_is_product_of_dets():
    a, b = np.random.rand(4, 4), np.random.rand(4, 4)
    np.testing.assert_allclose(F.det(F.matmul(a, b)).array,
                               (F.det(a) * F.det(b)).array, rtol=1e-10)
    assert F.det(a).shape == () and F.batch_det(a[None]).shape == (1,)


def test_det_gradient_of_a_singular_matrix_raises():
    x = chainlet.Variable(np.zeros((2, 2)))
    y = F.det(x)
    assert y.array == 0
    with pytest.raises(ValueError):
        y.backward()


@pytest.mark.parametrize('func, shape, arg', [
    (F.batch_det, (2, 2), 'ndim 3'), (F.batch_det, (2, 1, 2), 'square'),
    (F.det, (1, 2, 2), 'ndim 2'), (F.det, (1, 2), 'square')])
def test_det_shape_errors(func, shape, arg):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument a: expected .*{arg}'):
        func(np.zeros(shape, np.float32))
