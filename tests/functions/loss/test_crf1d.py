import itertools

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import gradient_check
from chainlet.functions.loss import crf1d as crf1d_module

CASES = [([3, 3], [2, 2, 2]), ([3, 2, 1], [3, 2, 1]), ([3, 1, 1], [3, 1, 1]), ([1, 1], [2])]


def _setup(batches, n_label=3):
    cost = np.random.uniform(-1, 1, (n_label, n_label))
    xs = [np.random.uniform(-1, 1, (b, n_label)) for b in batches]
    ys = [np.random.randint(0, n_label, (b,)).astype(np.int32) for b in batches]
    return cost, xs, ys


def _score(cost, xs, b, labels):
    return sum(x[b, y] for x, y in zip(xs, labels)) + \
        sum(cost[p, q] for p, q in zip(labels[:-1], labels[1:]))


@pytest.mark.parametrize('lengths, batches', CASES)
def test_crf1d_against_enumeration(lengths, batches):
    cost, xs, ys = _setup(batches)
    expected = []
    for b, length in enumerate(lengths):
        z = sum(np.exp(_score(cost, xs, b, p))
                for p in itertools.product(range(3), repeat=length))
        expected.append(np.log(z) - _score(cost, xs, b, [ys[t][b] for t in range(length)]))
    np.testing.assert_allclose(F.crf1d(cost, xs, ys, reduce='no').array, expected)
    np.testing.assert_allclose(F.crf1d(cost, xs, ys).array, sum(expected) / batches[0])

    def f(c, *xs_):
        return F.crf1d(c, xs_, ys, reduce='no')

    gy = np.random.uniform(-1, 1, len(lengths))
    gradient_check.check_backward(f, [cost] + xs, gy)
    ggs = [np.random.uniform(-1, 1, a.shape) for a in [cost] + xs]
    gradient_check.check_double_backward(f, [cost] + xs, gy, ggs)


@pytest.mark.parametrize('lengths, batches', CASES)
def test_argmax_crf1d_finds_the_best_path(lengths, batches):
    cost, xs, _ = _setup(batches)
    score, path = crf1d_module.argmax_crf1d(cost, xs)
    assert score.shape == (batches[0],) and len(path) == len(batches)
    for b, length in enumerate(lengths):
        best = max(itertools.product(range(3), repeat=length),
                   key=lambda p: _score(cost, xs, b, p))
        np.testing.assert_allclose(score.array[b], _score(cost, xs, b, best))
        assert [int(path[t][b]) for t in range(length)] == list(best)


def test_crf1d_errors():
    cost, xs, ys = _setup([2, 2])
    with pytest.raises(ValueError, match="crf1d: argument reduce"):
        F.crf1d(cost, xs, ys, 'sum')
    with pytest.raises(ValueError, match='crf1d: argument ys'):
        F.crf1d(cost, xs, ys[:1])
    with pytest.raises(ValueError, match='batch sizes must not increase'):
        F.crf1d(cost, [xs[0][:1], xs[1]], [ys[0][:1], ys[1]])
    with pytest.raises(ValueError, match='argument cost'):
        F.argmax_crf1d(np.zeros((2, 3)), xs)
