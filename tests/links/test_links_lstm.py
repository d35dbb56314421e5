import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet import initializers
from chainlet.gradient_check import check_backward


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _step(link, x, c, h):
    """One LSTM step in NumPy from the link's parameters (gates interleaved a, i, f, o)."""
    pre = x @ link.upward.W.array.T + link.upward.b.array
    if h is not None:
        pre = pre + h @ link.lateral.W.array.T
    a, i, f, o = (pre.reshape(len(x), -1, 4)[:, :, k] for k in range(4))
    c = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * c
    return c, _sigmoid(o) * np.tanh(c)


def _float64_lstm(in_size, out_size, rng):
    return L.LSTM(in_size, out_size, lateral_init=initializers.Normal(0.5, np.float64),
                  upward_init=initializers.Normal(0.5, np.float64),
                  bias_init=initializers.Normal(0.5, np.float64),
                  forget_bias_init=initializers.Normal(0.5, np.float64))


def test_parameters_and_default_initialization():
    np.random.seed(0)
    lstm = L.LSTM(3, 4)
    assert [n for n, _ in lstm.namedparams()] == ['/lateral/W', '/upward/W', '/upward/b']
    assert lstm.upward.W.shape == (16, 3) and lstm.lateral.W.shape == (16, 4)
    b = lstm.upward.b.array.reshape(4, 4)
    np.testing.assert_array_equal(b[:, 2], 1.0)  # forget gates
    np.testing.assert_array_equal(b[:, [0, 1, 3]], 0.0)
    shapes = []
    L.LSTM(3, 2, upward_init=lambda a: shapes.append(a.shape))
    assert shapes == [(2, 3)] * 4  # one call per gate block
    assert repr(lstm) == ('LSTM(in_size=3, out_size=4\n  (lateral): Linear(in_size=4, '
                          'out_size=16, nobias=True),\n  (upward): Linear(in_size=3, '
                          'out_size=16, nobias=False),\n)')


def test_state_over_steps_matches_numpy_and_reset():
    rng = np.random.RandomState(1)
    lstm = _float64_lstm(3, 2, rng)
    xs = [rng.randn(4, 3) for _ in range(3)]
    c, h = np.zeros((4, 2)), None
    for x in xs:
        y = lstm(x)
        c, h = _step(lstm, x, c, h)
        np.testing.assert_allclose(y.array, h, rtol=1e-12)
        np.testing.assert_allclose(lstm.c.array, c, rtol=1e-12)
        np.testing.assert_allclose(lstm.h.array, h, rtol=1e-12)
    lstm.reset_state()
    assert lstm.c is None and lstm.h is None
    c0, h0 = _step(lstm, xs[0], np.zeros((4, 2)), None)
    np.testing.assert_allclose(lstm(xs[0]).array, h0, rtol=1e-12)


def test_shrinking_batch_and_set_state():
    rng = np.random.RandomState(2)
    lstm = _float64_lstm(3, 2, rng)
    c0, h0 = rng.randn(3, 2), rng.randn(3, 2)
    lstm.set_state(c0, h0)
    x = rng.randn(2, 3)
    y = lstm(x)
    c, h = _step(lstm, x, c0[:2], h0[:2])
    np.testing.assert_allclose(y.array, h, rtol=1e-12)
    np.testing.assert_allclose(lstm.h.array, np.concatenate([h, h0[2:]]), rtol=1e-12)
    np.testing.assert_allclose(lstm.c.array, np.concatenate([c, c0[2:]]), rtol=1e-12)
    with pytest.raises(TypeError, match='batch of at most 3'):  # Chainer's error type
        lstm(rng.randn(4, 3))
    with pytest.raises(ValueError, match='set_state'):
        lstm.set_state(np.zeros((2, 3, 1)), np.zeros((2, 2)))
    lstm.set_state(np.zeros((2, 5)), np.zeros((2, 5)))  # accepted as in Chainer; width unchecked
    assert lstm.c.shape == (2, 5)


def test_lazy_in_size_and_gradient_check():
    lstm = L.LSTM(5)
    assert lstm.upward.W.array is None
    assert lstm(np.ones((2, 3), np.float32)).shape == (2, 5)
    assert lstm.upward.W.shape == (20, 3)
    np.testing.assert_array_equal(lstm.upward.b.array.reshape(5, 4)[:, 2], 1.0)

    rng = np.random.RandomState(3)
    link = _float64_lstm(3, 2, rng)
    xs = [rng.randn(2, 3), rng.randn(2, 3)]
    gys = [rng.randn(2, 2), rng.randn(2, 2)]

    def two_steps(x1, x2):
        link.reset_state()
        return link(x1), link(x2)

    check_backward(two_steps, tuple(xs), tuple(gys), params=list(link.params()), seed=0)


def test_stateless_lstm_and_copy():
    rng = np.random.RandomState(4)
    cell = L.StatelessLSTM(3, 2, upward_init=initializers.Normal(0.5, np.float64))
    x, c0, h0 = rng.randn(2, 3), rng.randn(2, 2), rng.randn(2, 2)
    c, h = cell(c0, h0, x)
    c_ref, h_ref = _step(cell, x, c0, h0)
    np.testing.assert_allclose(c.array, c_ref, rtol=1e-12)
    np.testing.assert_allclose(h.array, h_ref, rtol=1e-12)
    fresh = L.LSTM(2, 3).copy('init')  # re-initialization keeps the forget bias at 1
    np.testing.assert_array_equal(fresh.upward.b.array.reshape(3, 4)[:, 2], 1.0)
    moved = L.LSTM(2, 3)
    moved(np.ones((1, 2), np.float32))
    moved.to_device('@numpy')
    assert moved.h.shape == (1, 3) and moved(np.ones((1, 2), np.float32)).shape == (1, 3)
    with chainlet.using_config('dtype', np.float64):
        assert L.LSTM(2, 3).lateral.W.dtype == np.float64
