import numpy as np
import pytest

import chainlet.functions as F
import chainlet.links as L
from chainlet import initializers
from chainlet.gradient_check import check_backward


def _seqs(rng, lengths, size, dtype=np.float32):
    return [rng.randn(n, size).astype(dtype) for n in lengths]


def test_parameters_named_as_chainer():
    lstm = L.NStepLSTM(2, 3, 4, 0.1)
    names = [n for n, _ in lstm.namedparams()]
    assert names[:4] == ['/0/b0', '/0/b1', '/0/b2', '/0/b3']  # sorted, as in Chainer
    assert len(names) == 2 * 16 and names[-1] == '/1/w7'
    assert lstm[0].w0.shape == (4, 3) and lstm[0].w4.shape == (4, 4)
    assert lstm[1].w0.shape == (4, 4) and lstm[1].b3.shape == (4,)
    bi = L.NStepBiLSTM(2, 3, 4, 0.0)
    assert len(bi) == 4 and bi[2].w0.shape == (4, 8) and bi[2].w4.shape == (4, 4)
    gru = L.NStepGRU(1, 3, 4, 0.0)
    assert [n for n, _ in gru.namedparams()][-1] == '/0/w5'
    assert repr(lstm) == 'NStepLSTM(n_layers=2, in_size=3, out_size=4, dropout=0.1)'
    np.testing.assert_array_equal(lstm[0].b0.array, 0.0)


def test_n_step_lstm_matches_function_with_variable_lengths():
    rng = np.random.RandomState(0)
    lstm = L.NStepLSTM(2, 3, 4, 0.0)
    lengths = [2, 5, 1, 5, 3]
    xs = _seqs(rng, lengths, 3)
    hx = rng.randn(2, 5, 4).astype(np.float32)
    cx = rng.randn(2, 5, 4).astype(np.float32)
    hy, cy, ys = lstm(hx, cx, xs)
    # By hand: sort by decreasing length (stable), transpose, call F.n_step_lstm, undo.
    order = [1, 3, 4, 0, 2]
    txs = F.transpose_sequence([xs[i] for i in order])
    hy_ref, cy_ref, tys = F.n_step_lstm(2, 0.0, hx[:, order], cx[:, order], lstm.ws,
                                        lstm.bs, txs)
    ys_sorted = F.transpose_sequence(tys)
    for k, i in enumerate(order):
        np.testing.assert_allclose(ys[i].array, ys_sorted[k].array, rtol=1e-6)
        np.testing.assert_allclose(hy.array[:, i], hy_ref.array[:, k], rtol=1e-6)
        np.testing.assert_allclose(cy.array[:, i], cy_ref.array[:, k], rtol=1e-6)
        assert ys[i].shape == (lengths[i], 4)
    # Each sequence alone gives the same result as inside the batch.
    for i in (0, 2):
        h1, c1, y1 = lstm(hx[:, i:i + 1], cx[:, i:i + 1], [xs[i]])
        np.testing.assert_allclose(y1[0].array, ys[i].array, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(h1.array[:, 0], hy.array[:, i], rtol=1e-5, atol=1e-6)


def test_zero_initial_state_and_gru():
    rng = np.random.RandomState(1)
    xs = _seqs(rng, [3, 1, 2], 2)
    lstm = L.NStepLSTM(1, 2, 3, 0.0)
    zeros = np.zeros((1, 3, 3), np.float32)
    for a, b in zip(lstm(None, None, xs)[2], lstm(zeros, zeros, xs)[2]):
        np.testing.assert_array_equal(a.array, b.array)
    gru = L.NStepGRU(2, 2, 3, 0.0)
    hy, ys = gru(None, xs)
    order = [0, 2, 1]
    hy_ref, tys = F.n_step_gru(2, 0.0, np.zeros((2, 3, 3), np.float32), gru.ws, gru.bs,
                               F.transpose_sequence([xs[i] for i in order]))
    ys_sorted = F.transpose_sequence(tys)
    for k, i in enumerate(order):
        np.testing.assert_allclose(ys[i].array, ys_sorted[k].array, rtol=1e-6)
        np.testing.assert_allclose(hy.array[:, i], hy_ref.array[:, k], rtol=1e-6)
    bigru = L.NStepBiGRU(1, 2, 3, 0.0)
    hy, ys = bigru(None, xs)
    assert hy.shape == (2, 3, 3) and [y.shape for y in ys] == [(3, 6), (1, 6), (2, 6)]
    rnn = L.NStepBiRNNReLU(1, 2, 3, 0.0)
    hy, ys = rnn(None, xs)
    assert hy.shape == (2, 3, 3) and ys[0].shape == (3, 6)
    assert (ys[0].array >= 0).all()


def test_gradient_check_lstm():
    rng = np.random.RandomState(2)
    lstm = L.NStepLSTM(1, 2, 2, 0.0, initialW=initializers.Normal(0.5, np.float64),
                       initial_bias=initializers.Normal(0.5, np.float64))
    assert lstm[0].w0.dtype == np.float64
    xs = tuple(_seqs(rng, [2, 3], 2, np.float64))
    hx = rng.randn(1, 2, 2)

    def run(h, *seqs):
        hy, cy, ys = lstm(h, None, list(seqs))
        return (hy, cy) + tuple(ys)

    shapes = [(1, 2, 2), (1, 2, 2), (2, 2), (3, 2)]
    gys = tuple(rng.randn(*s) for s in shapes)
    check_backward(run, (hx,) + xs, gys, params=list(lstm.params()), seed=0)


def test_errors_and_copy():
    lstm = L.NStepLSTM(1, 2, 3, 0.0)
    with pytest.raises(ValueError, match='L >= 1'):
        lstm(None, None, [np.zeros((0, 2), np.float32)])
    with pytest.raises(TypeError, match='NStepLSTM: argument xs'):
        lstm(None, None, np.zeros((2, 2), np.float32))
    with pytest.raises(ValueError, match='dropout'):
        L.NStepLSTM(1, 2, 3, 1.0)
    copy = lstm.copy('copy')
    assert copy.ws[0][0] is copy[0].w0 and copy.ws[0][0] is not lstm.ws[0][0]
    np.testing.assert_array_equal(copy.ws[0][0].array, lstm.ws[0][0].array)
