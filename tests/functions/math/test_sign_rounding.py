"""sign, floor, ceil, fix: not differentiable, outside the graph."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F


@pytest.mark.parametrize('func, ref', [(F.sign, np.sign), (F.floor, np.floor),
                                       (F.ceil, np.ceil), (F.fix, np.trunc)])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('shape', [(3, 4), (), (0, 2)])
def test_values_dtype_and_no_graph(func, ref, dtype, shape):
    data = np.random.uniform(-3, 3, shape).astype(dtype)
    x = chainlet.Variable(data)
    y = func(x)
    assert isinstance(y, chainlet.Variable)
    assert isinstance(y.array, np.ndarray) and y.dtype == dtype and y.shape == shape
    np.testing.assert_array_equal(y.array, ref(data))
    assert y.creator_node is None and not y.requires_grad


@pytest.mark.parametrize('func', [F.sign, F.floor, F.ceil, F.fix])
def test_gradient_does_not_flow(func):
    x = chainlet.Variable(np.array([1.5, -0.5]))
    z = func(x) * x  # only the second factor carries a gradient
    z.grad = np.ones(2)
    z.backward()
    np.testing.assert_array_equal(x.grad, func(x).array)


def test_integer_inputs_keep_their_dtype():
    x = np.array([-2, 0, 3])
    assert F.sign(x).dtype == x.dtype
    assert F.floor(x).dtype == x.dtype
    np.testing.assert_array_equal(F.fix(x).array, x)


def test_rounding_of_halves():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5])
    np.testing.assert_array_equal(F.floor(x).array, [-3, -2, -1, 0, 1])
    np.testing.assert_array_equal(F.ceil(x).array, [-2, -1, 0, 1, 2])
    np.testing.assert_array_equal(F.fix(x).array, [-2, -1, 0, 0, 1])
    np.testing.assert_array_equal(F.sign(np.array([-0.0, 0.0, -3.0])).array, [0, 0, -1])


@pytest.mark.parametrize('func', [F.sign, F.floor, F.ceil, F.fix])
def test_rejects_non_arrays(func):
    with pytest.raises(TypeError, match=f'{func.__name__}: argument x: expected a Variable'):
        func([1.0, 2.0])
