import numpy as np
import pytest

import chainlet.functions as F
from chainlet.gradient_check import check_backward, check_double_backward
from chainlet.type_check import InvalidType


def test_forward_and_inverse():
    rng = np.random.RandomState(0)
    xs = [rng.randn(n, 2) for n in (4, 2, 2, 1)]
    ys = F.transpose_sequence(xs)
    assert [y.shape for y in ys] == [(4, 2), (3, 2), (1, 2), (1, 2)]
    for t, y in enumerate(ys):
        expected = np.stack([x[t] for x in xs if len(x) > t])
        np.testing.assert_array_equal(y.array, expected)
    back = F.transpose_sequence(ys)
    for x, b in zip(xs, back):
        np.testing.assert_array_equal(x, b.array)
    assert F.transpose_sequence([]) == ()
    assert F.transpose_sequence([np.zeros((0, 3))]) == ()


def test_gradients():
    rng = np.random.RandomState(1)
    xs = tuple(rng.randn(n, 3) for n in (3, 2, 0))
    ys = F.transpose_sequence(list(xs))
    gys = tuple(rng.randn(*y.shape) for y in ys)
    check_backward(lambda *a: F.transpose_sequence(list(a)), xs, gys, seed=0)
    ggxs = tuple(rng.randn(*x.shape) for x in xs)
    check_double_backward(lambda *a: tuple(y * y for y in F.transpose_sequence(list(a))),
                          xs, gys, ggxs)


def test_unused_output_gets_zero_gradient():
    import chainlet
    xs = [chainlet.Variable(np.ones((2, 2))), chainlet.Variable(np.ones((1, 2)))]
    ys = F.transpose_sequence(xs)
    F.sum(ys[1]).backward()
    np.testing.assert_array_equal(xs[0].grad, [[0, 0], [1, 1]])
    np.testing.assert_array_equal(xs[1].grad, [[0, 0]])


def test_errors():
    with pytest.raises(InvalidType, match='transpose_sequence: argument xs\\[1\\]'):
        F.transpose_sequence([np.zeros((1, 2)), np.zeros((2, 2))])
    with pytest.raises(InvalidType, match='xs\\[1\\]'):
        F.transpose_sequence([np.zeros((2, 2)), np.zeros((1, 3))])
    with pytest.raises(TypeError):
        F.transpose_sequence(np.zeros((2, 2)))
