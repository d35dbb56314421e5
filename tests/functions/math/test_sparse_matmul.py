"""sparse_matmul: COO times dense and dense times COO, 2-d and batched, every transposition;
gradients for the sparse data and the dense operand, to second order; shape errors."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.functions.math.sparse_matmul import CooMatMul
from chainlet.utils import to_coo


def _sparse(shape, dtype, seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(0.5, 1, shape)
    x[rng.uniform(0, 1, shape) < 0.6] = 0
    return x.astype(dtype)


def _t(x, trans):
    return x.swapaxes(-1, -2) if trans else x


@pytest.mark.parametrize('batch', [None, 3])
@pytest.mark.parametrize('transa', [False, True])
@pytest.mark.parametrize('transb', [False, True])
@pytest.mark.parametrize('dtypes', [(np.float32, np.float32), (np.float16, np.float64)])
def test_forward_both_orders(batch, transa, transb, dtypes):
    m, k, n = 4, 5, 2
    lead = () if batch is None else (batch,)
    a = _sparse(lead + ((k, m) if transa else (m, k)), dtypes[0], 0)
    b = np.random.uniform(-1, 1, lead + ((n, k) if transb else (k, n))).astype(dtypes[1])
    expected = np.matmul(_t(a, transa).astype(np.float64), _t(b, transb))
    y = F.sparse_matmul(to_coo(a), b, transa=transa, transb=transb)
    assert y.dtype == np.result_type(*dtypes)
    np.testing.assert_allclose(y.array, expected, rtol=1e-3, atol=1e-3)
    # Dense on the left: (b^T a^T) with the sparse operand second.
    bt, at = _t(b, True), _t(a, True)
    y2 = F.sparse_matmul(bt, to_coo(at), transa=transb, transb=transa)
    np.testing.assert_allclose(y2.array, _t(expected, True), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize('batch', [None, 2])
@pytest.mark.parametrize('transa, transb, transc', [(False, False, False), (True, False, True),
                                                    (False, True, True), (True, True, False)])
def test_gradients_to_second_order(batch, transa, transb, transc):
    m, k, n = 3, 4, 2
    lead = () if batch is None else (batch,)
    a = _sparse(lead + ((k, m) if transa else (m, k)), np.float64, 1)
    sp = to_coo(a)
    b = np.random.uniform(-1, 1, lead + ((n, k) if transb else (k, n)))
    c_shape = lead + ((n, m) if transc else (m, n))

    def f(data, dense):
        return CooMatMul(sp.row, sp.col, sp.shape, sp.order, transa, transb,
                         transc).apply((data, dense))

    gc = np.random.uniform(-1, 1, c_shape)
    gradient_check.check_backward(f, (sp.data.array, b), gc)
    gg = (np.random.uniform(-1, 1, sp.data.shape) * (sp.row >= 0), np.random.rand(*b.shape))
    gradient_check.check_double_backward(f, (sp.data.array, b), gc, gg)


def test_padding_entries_are_ignored():
    a = np.array([[0.0, 2.0], [0.0, 0.0]])
    sp = to_coo(a, ldnz=4)
    assert (sp.row < 0).any()
    y = F.sparse_matmul(sp, np.eye(2))
    np.testing.assert_allclose(y.array, a)


def test_shape_errors():
    sp = to_coo(np.ones((3, 4)))
    with pytest.raises(TypeError, match='sparse_matmul: argument dn: expected 4 on the '
                                        'contracted axis'):
        F.sparse_matmul(sp, np.ones((3, 2)))
    with pytest.raises(TypeError, match='sparse_matmul: argument dn: expected ndim 2 or 3'):
        F.sparse_matmul(sp, np.ones(4))
    with pytest.raises(TypeError, match='sparse_matmul: argument sp'):
        F.sparse_matmul(sp, np.ones((2, 4, 2)))
    with pytest.raises(ValueError, match='exactly one operand'):
        F.sparse_matmul(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match='sp_row and sp_col must have the same shape'):
        CooMatMul(np.zeros(3, np.int32), np.zeros(4, np.int32), (2, 2))


def test_gradient_reaches_coo_data():
    sp = to_coo(np.array([[1.0, 0.0], [0.0, 2.0]]), requires_grad=True)
    b = chainlet.Variable(np.ones((2, 3)))
    F.sum(F.sparse_matmul(sp, b)).backward()
    np.testing.assert_allclose(sp.data.grad[:2], [3.0, 3.0])
    np.testing.assert_allclose(b.grad, [[1.0] * 3, [2.0] * 3])
