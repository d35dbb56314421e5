import itertools

import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet.gradient_check import check_backward


def _nll(cost, xs, ys):
    """Brute-force negative log-likelihood of one sequence (time-major lists of vectors)."""
    def score(labels):
        s = sum(x[y] for x, y in zip(xs, labels))
        return s + sum(cost[a, b] for a, b in zip(labels[:-1], labels[1:]))
    n_label = cost.shape[0]
    z = sum(np.exp(score(p)) for p in itertools.product(range(n_label), repeat=len(xs)))
    return np.log(z) - score(ys)


def test_crf1d_loss_argmax_and_gradient():
    rng = np.random.RandomState(0)
    with chainlet.using_config('dtype', np.float64):
        crf = L.CRF1d(3, initial_cost=rng.randn(3, 3))
    assert crf.cost.shape == (3, 3) and crf.cost.dtype == np.float64
    xs = [rng.randn(2, 3) for _ in range(3)]
    ys = [rng.randint(0, 3, 2).astype(np.int32) for _ in range(3)]
    loss = crf(xs, ys)
    expected = np.mean([_nll(crf.cost.array, [x[b] for x in xs], [y[b] for y in ys])
                        for b in range(2)])
    np.testing.assert_allclose(loss.array, expected, rtol=1e-10)
    per_sequence = crf(xs, ys, reduce='no')
    assert per_sequence.shape == (2,)
    _, path = crf.argmax(xs)
    best = max(itertools.product(range(3), repeat=3),
               key=lambda p: -_nll(crf.cost.array, [x[0] for x in xs], p))
    assert [int(p[0]) for p in path] == list(best)
    check_backward(lambda *a: crf(list(a), ys), tuple(xs), None, params=[crf.cost], seed=0)


def test_crf1d_batch_major_and_default_cost():
    crf = L.CRF1d(2, transpose=True)
    np.testing.assert_array_equal(crf.cost.array, np.zeros((2, 2), np.float32))
    xs = [np.array([[1, 0], [0, 1], [1, 0]], np.float32), np.array([[0, 1]], np.float32)]
    ys = [np.array([0, 1, 0], np.int32), np.array([1], np.int32)]
    loss = crf(xs, ys)
    time_major = L.CRF1d(2)([np.array([[1, 0], [0, 1]], np.float32),
                             np.array([[0, 1]], np.float32), np.array([[1, 0]], np.float32)],
                            [np.array([0, 1], np.int32), np.array([1], np.int32),
                             np.array([0], np.int32)])
    np.testing.assert_allclose(loss.array, time_major.array, rtol=1e-6)
    _, path = crf.argmax(xs)
    assert [p.tolist() for p in path] == [[0, 1, 0], [1]]
    with pytest.raises(ValueError):
        L.CRF1d(0)


def test_crf1d_batch_major_sorts_unsorted_input_and_returns_input_order():
    # Regression: batch-major sequences need not be sorted by length (Chainer 7 sorts them);
    # paths, scores and per-sequence losses come back in the order of the input.
    rng = np.random.RandomState(1)
    crf = L.CRF1d(3, initial_cost=rng.randn(3, 3).astype(np.float32))
    lengths = [2, 4, 1, 3]
    xs = [rng.randn(n, 3).astype(np.float32) for n in lengths]
    ys = [rng.randint(0, 3, n).astype(np.int32) for n in lengths]
    losses = crf(xs, ys, reduce='no', transpose=True)
    expected = [_nll(crf.cost.array, list(x), list(y)) for x, y in zip(xs, ys)]
    np.testing.assert_allclose(losses.array, expected, rtol=1e-5)
    np.testing.assert_allclose(crf(xs, ys, transpose=True).array, np.mean(expected), rtol=1e-5)
    score, path = crf.argmax(xs, transpose=True)
    assert [len(p) for p in path] == lengths
    for x, p, s in zip(xs, path, score.array):
        alone_score, alone_path = crf.argmax([x], transpose=True)
        assert p.tolist() == alone_path[0].tolist()
        np.testing.assert_allclose(s, alone_score.array[0], rtol=1e-6)
    check_backward(lambda *a: crf(list(a), ys, reduce='no', transpose=True), tuple(xs),
                   rng.randn(4).astype(np.float32), params=[crf.cost], seed=0, dtype=np.float64)
