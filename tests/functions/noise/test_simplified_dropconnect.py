import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check


def _reference(x, W, b, mask, ratio):
    Wm = W.astype(np.float64) * mask / (1 - ratio)
    x2 = x.reshape(len(x), -1).astype(np.float64)
    y = np.einsum('ijk,ik->ij', Wm, x2) if mask.ndim == 3 else x2 @ Wm.T
    return y + (0 if b is None else b)


@pytest.mark.parametrize('batchwise', [True, False])
@pytest.mark.parametrize('x_dtype, W_dtype', [(np.float32, np.float32), (np.float64, np.float16),
                                              (np.float16, np.float64)])
@pytest.mark.parametrize('with_bias', [True, False])
def test_simplified_dropconnect(batchwise, x_dtype, W_dtype, with_bias):
    x = np.random.uniform(-1, 1, (4, 3, 1)).astype(x_dtype)
    W = np.random.uniform(-1, 1, (2, 3)).astype(W_dtype)
    b = np.random.uniform(-1, 1, 2).astype(x_dtype) if with_bias else None
    mask = np.random.rand(*((4, 2, 3) if batchwise else (2, 3))) >= 0.4

    def f(x, W, b=None):
        return F.simplified_dropconnect(x, W, b, 0.4, True, mask)

    args = (x, W) if b is None else (x, W, b)
    y = f(*args)
    assert y.dtype == x_dtype and y.shape == (4, 2)
    tol = 1e-2 if np.float16 in (x_dtype, W_dtype) else 1e-5
    np.testing.assert_allclose(y.array, _reference(x, W, b, mask, 0.4), rtol=tol, atol=tol)
    gy = np.random.uniform(-1, 1, (4, 2)).astype(x_dtype)
    ggs = tuple(np.random.uniform(-1, 1, a.shape).astype(a.dtype) for a in args)
    opts = dict(dtype=np.float64, atol=5e-2, rtol=5e-2) if tol == 1e-2 else \
        dict(atol=1e-3, rtol=1e-3)
    gradient_check.check_backward(f, args, gy, eps=1e-2, **opts)
    gradient_check.check_double_backward(f, args, gy, ggs, eps=1e-2, **opts)


def test_simplified_dropconnect_draws_and_keeps_the_mask():
    x = chainlet.Variable(np.ones((5, 3), np.float32))
    W = chainlet.Variable(np.ones((2, 3), np.float32))
    y = F.simplified_dropconnect(x, W, ratio=0.5)
    assert y.creator.mask.shape == (5, 2, 3) and y.creator.mask.dtype == bool
    np.testing.assert_allclose(y.array, 2 * y.creator.mask.sum(axis=2))
    y = F.simplified_dropconnect(x, W, ratio=0.5, use_batchwise_mask=False)
    assert y.creator.mask.shape == (2, 3)
    y = F.simplified_dropconnect(x, W, ratio=0.5, train=False)
    np.testing.assert_allclose(y.array, np.full((5, 2), 3.0))


def test_simplified_dropconnect_errors():
    with pytest.raises(ValueError, match='argument ratio'):
        F.simplified_dropconnect(np.ones((1, 2)), np.ones((1, 2)), ratio=1.0)
    with pytest.raises(TypeError, match='argument W'):
        F.simplified_dropconnect(np.ones((1, 2)), np.ones((1, 3)))
    with pytest.raises(TypeError, match='argument mask'):
        F.simplified_dropconnect(np.ones((1, 2)), np.ones((1, 2)), mask=np.ones((2, 2)))


@pytest.mark.parametrize('batchwise', [True, False])
def test_empty_batch_gives_empty_output(batchwise):
    # x.reshape(0, -1) cannot infer the -1: the features come from W's shape instead.
    x = chainlet.Variable(np.zeros((0, 3, 2), np.float32))
    W = chainlet.Variable(np.ones((4, 6), np.float32))
    b = chainlet.Variable(np.ones(4, np.float32))
    y = F.simplified_dropconnect(x, W, b, use_batchwise_mask=batchwise)
    assert y.shape == (0, 4) and y.dtype == np.float32
    y.grad = np.zeros(y.shape, np.float32)
    y.backward()
    assert x.grad.shape == (0, 3, 2)
    np.testing.assert_array_equal(W.grad, np.zeros((4, 6), np.float32))
    np.testing.assert_array_equal(b.grad, np.zeros(4, np.float32))
