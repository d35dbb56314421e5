"""chainlet.utils.array: size_of_shape, sum_to and the deprecated helpers."""
import numpy as np
import pytest

import chainlet
from chainlet.utils import array


@pytest.mark.parametrize('shape', [(), (2, 3), (1,), (0,), (5, 6, 7), (0, 3), (2, 0)])
def test_size_of_shape(shape):
    size = array.size_of_shape(shape)
    assert type(size) is int
    assert size == np.empty(shape).size


def _sum_to_ref(x, shape):
    """Accumulate every element of x into the entry of shape it broadcasts from."""
    y = np.zeros(shape, x.dtype)
    lead = x.ndim - len(shape)
    for index in np.ndindex(x.shape):
        target = tuple(0 if s == 1 else i for i, s in zip(index[lead:], shape))
        y[target] += x[index]
    return y


@pytest.mark.parametrize('in_shape,out_shape', [
    ((), ()), ((3,), ()), ((3,), (1,)), ((3,), (3,)), ((2, 3), ()), ((2, 3), (3,)),
    ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((2, 3), (2, 3)), ((2, 3, 4), (3, 1)),
    ((2, 1, 4), (1, 1)), ((0, 3), (3,)), ((2, 0), (1, 0)),
])
@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_sum_to(in_shape, out_shape, dtype):
    x = np.arange(1, np.prod(in_shape) + 1).astype(dtype).reshape(in_shape)
    y = array.sum_to(x, out_shape)
    assert y.shape == out_shape and y.dtype == dtype
    np.testing.assert_array_equal(y, _sum_to_ref(x, out_shape))


def test_sum_to_same_shape_is_identity():
    x = np.ones((2, 3))
    assert array.sum_to(x, (2, 3)) is x


def test_sum_to_rejects_variable():
    with pytest.raises(TypeError, match='chainlet.functions.sum_to'):
        array.sum_to(chainlet.Variable(np.ones((2, 3))), (3,))


@pytest.mark.parametrize('in_shape,out_shape', [((3,), (2, 3)), ((2, 3), (4,)),
                                                ((2, 3), (2, 2))])
def test_sum_to_bad_shape(in_shape, out_shape):
    with pytest.raises(ValueError, match=r'cannot sum an array of shape'):
        array.sum_to(np.ones(in_shape), out_shape)


def test_deprecated_helpers():
    x = np.arange(6.0).reshape(2, 3, 1)
    with pytest.warns(DeprecationWarning):
        assert array.as_vec(x).shape == (6,)
    with pytest.warns(DeprecationWarning):
        assert array.as_mat(x).shape == (2, 3)
    with pytest.warns(DeprecationWarning):
        e = array.empty_like(x)
    assert e.shape == x.shape and e.dtype == x.dtype and e is not x


def test_broadcast_to():
    assert array._broadcast_to(np, np.ones(3), (2, 3)).shape == (2, 3)


@pytest.mark.parametrize('in_shape,out_shape', [
    ((), (2, 3)), ((1,), (4,)), ((1, 1), (2, 1, 3)), ((), ()), ((1,), (0,)), ((2, 1), (3, 2, 4)),
])
def test_broadcast_view_is_numpys_broadcast_to(in_shape, out_shape):
    x = np.asarray(np.arange(np.prod(in_shape), dtype=np.float32).reshape(in_shape) + 2)
    view = array.broadcast_view(x, out_shape)
    expected = np.broadcast_to(x, out_shape)
    assert view.shape == expected.shape and view.dtype == x.dtype
    np.testing.assert_array_equal(view, expected)
    assert not view.flags.writeable and (view.size == 0 or np.shares_memory(view, x))


def test_broadcast_view_refuses_what_numpy_refuses():
    with pytest.raises(ValueError):
        array.broadcast_view(np.ones((1, 1)), (3,))
    with pytest.raises(ValueError):
        array.broadcast_view(np.ones(2), (3,))
