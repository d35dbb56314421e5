"""matmul (2-D, 1-D operands, batched with broadcasting, transa/transb) and batch_matmul."""
import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


class TestMatmul(PytestFunctionTestCase):
    params = [{'a': (2, 3), 'b': (3, 4)},
              {'a': (3,), 'b': (3, 4)},
              {'a': (2, 3), 'b': (3,)},
              {'a': (3,), 'b': (3,)},
              {'a': (2, 2, 3), 'b': (3, 4)},
              {'a': (2, 1, 2, 3), 'b': (3, 3, 2)},
              {'a': (3,), 'b': (2, 3, 4)},
              {'a': (0, 3), 'b': (3, 2)},
              {'a': (2, 0), 'b': (0, 2)}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.a).astype(self.dtype),
                np.random.uniform(-1, 1, self.b).astype(self.dtype))

    def forward(self, inputs, device):
        return F.matmul(*inputs),

    def forward_expected(self, inputs):
        a, b = inputs
        return np.asarray(np.matmul(a.astype(np.float64), b), self.dtype),


class TestMatmulTransposed(PytestFunctionTestCase):
    params = [{'a': (3, 2), 'b': (3, 4), 'ta': True, 'tb': False},
              {'a': (2, 3), 'b': (4, 3), 'ta': False, 'tb': True},
              {'a': (2, 3, 2), 'b': (4, 3), 'ta': True, 'tb': True}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.a).astype(self.dtype),
                np.random.uniform(-1, 1, self.b).astype(self.dtype))

    def forward(self, inputs, device):
        return F.matmul(*inputs, transa=self.ta, transb=self.tb),

    def forward_expected(self, inputs):
        a, b = (x.astype(np.float64) for x in inputs)
        if self.ta:
            a = np.swapaxes(a, -1, -2)
        if self.tb:
            b = np.swapaxes(b, -1, -2)
        return np.asarray(a @ b, self.dtype),


def test_matmul_errors():
    with pytest.raises(TypeError, match='matmul: arguments a and b: contracted dimensions'):
        F.matmul(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(TypeError, match='matmul: argument b: expected ndim >= 1'):
        F.matmul(np.ones(3), np.array(1.0))
    with pytest.raises(TypeError, match='matmul: argument b: expected a floating-point'):
        F.matmul(np.ones((2, 3)), np.ones((3, 2), np.int32))
    with pytest.raises(TypeError, match='matmul: arguments a and b: batch dimensions'):
        F.matmul(np.ones((2, 2, 3)), np.ones((3, 3, 2)))


class TestBatchMatmul(PytestFunctionTestCase):
    params = [{'a': (2, 3, 4), 'b': (2, 4, 5), 'ta': False, 'tb': False},
              {'a': (2, 3), 'b': (2, 1, 4), 'ta': False, 'tb': False},
              {'a': (2, 3), 'b': (2, 3), 'ta': True, 'tb': False},
              {'a': (2, 4, 3), 'b': (2, 5, 4), 'ta': True, 'tb': True}]

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.a).astype(self.dtype),
                np.random.uniform(-1, 1, self.b).astype(self.dtype))

    def forward(self, inputs, device):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', DeprecationWarning)
            return F.batch_matmul(*inputs, transa=self.ta, transb=self.tb),

    def forward_expected(self, inputs):
        a, b = (x.astype(np.float64) for x in inputs)
        a = a.reshape(a.shape[:2] + (-1,))
        b = b.reshape(b.shape[:2] + (-1,))
        if self.ta:
            a = a.transpose(0, 2, 1)
        if self.tb:
            b = b.transpose(0, 2, 1)
        return np.asarray(a @ b, self.dtype),


def test_batch_matmul_is_deprecated_and_checks_shapes():
    with pytest.deprecated_call():
        y = F.batch_matmul(np.ones((2, 3, 4)), np.ones((2, 4)))
    assert y.shape == (2, 3, 1)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        with pytest.raises(TypeError, match='batch_matmul: arguments a and b: contracted'):
            F.batch_matmul(np.ones((2, 3, 4)), np.ones((2, 3, 4)))
        with pytest.raises(TypeError, match='batch_matmul: argument a: expected ndim 2 or 3'):
            F.batch_matmul(np.ones(3), np.ones((3, 1)))
        with pytest.raises(TypeError, match='batch_matmul: arguments a and b: batch sizes'):
            F.batch_matmul(np.ones((2, 3)), np.ones((3, 3)))


@pytest.mark.parametrize('da, db', [(np.float16, np.float32), (np.float64, np.float32)])
def test_matmul_mixed_dtypes_promote_and_cast_gradients_back(da, db):
    a = chainlet.Variable(np.random.rand(2, 3).astype(da))
    b = chainlet.Variable(np.random.rand(3, 4).astype(db))
    y = F.matmul(a, b)
    assert y.dtype == np.result_type(da, db)
    np.testing.assert_allclose(y.array, a.array.astype(np.float64) @ b.array, rtol=1e-3)
    F.sum(y).backward()
    assert a.grad.dtype == da and b.grad.dtype == db
    np.testing.assert_allclose(a.grad, np.ones((2, 4)) @ b.array.T.astype(np.float64),
                               rtol=1e-3)
