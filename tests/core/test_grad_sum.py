"""The core's gradient sum (where the graph branches) and gradient copy."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet._grad_sum import GradientSum, copy_grad, sum_grads


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shape', [(), (0,), (3, 2)])
@pytest.mark.parametrize('n', [2, 3, 5])
def test_sum_forward_backward_double(dtype, shape, n):
    xs = [np.random.uniform(-1, 1, shape).astype(dtype) for _ in range(n)]
    gy = np.random.uniform(-1, 1, shape).astype(dtype)
    ggxs = [np.random.uniform(-1, 1, shape).astype(dtype) for _ in range(n)]
    y = sum_grads([chainlet.Variable(x) for x in xs])
    np.testing.assert_allclose(y.array, sum(x.astype(np.float64) for x in xs),
                               rtol=1e-2 if dtype == np.float16 else 1e-6, atol=1e-3)
    assert y.dtype == dtype and y.shape == shape
    tol = {'atol': 5e-2, 'rtol': 5e-2} if dtype == np.float16 else {}

    def f(*args):
        return GradientSum().apply(args)[0]

    gradient_check.check_backward(f, tuple(xs), gy, dtype=np.float64, **tol)
    gradient_check.check_double_backward(f, tuple(xs), gy, tuple(ggxs), dtype=np.float64, **tol)


def test_one_term_is_itself_and_terms_are_not_written():
    a = chainlet.Variable(np.ones(3))
    assert sum_grads([a]) is a
    b = chainlet.Variable(np.full(3, 2.0))
    c = chainlet.Variable(np.full(3, 4.0))
    y = sum_grads([a, b, c])
    np.testing.assert_array_equal(y.array, [7.0] * 3)
    np.testing.assert_array_equal(a.array, [1.0] * 3)  # the sum is a fresh array
    assert y.creator.label == '_ + _'  # Chainer's graph dumps show gradient sums so


def test_mixed_dtypes_of_an_integer_inputs_gradients():
    a = chainlet.Variable(np.array([1, 2], np.int32))
    b = chainlet.Variable(np.array([0.5, 0.5], np.float32))
    np.testing.assert_allclose(sum_grads([a, b]).array, [1.5, 2.5])


def test_copy_is_private_and_differentiable():
    x = chainlet.Variable(np.array([1.0, 2.0]))
    g = x * 3.0
    c = copy_grad(g)
    assert not np.shares_memory(c.array, g.array)
    gx, = chainlet.grad([F.sum(c * c)], [x])
    np.testing.assert_allclose(gx.array, 2 * 9.0 * x.array)


def test_fan_out_is_summed_once_by_the_core_node():
    x = chainlet.Variable(np.array([1.0, 2.0]))
    ys = [x * float(i) for i in range(1, 5)]
    total = ys[0] + ys[1] + ys[2] + ys[3]
    gx, = chainlet.grad([F.sum(total)], [x], enable_double_backprop=True)
    np.testing.assert_allclose(gx.array, [10.0, 10.0])
    assert isinstance(gx.creator, GradientSum) and len(gx.creator.inputs) == 4
