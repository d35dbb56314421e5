import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet.gradient_check import check_backward


def _sig(a):
    return 1 / (1 + np.exp(-a))


def _float64(link_class, *args, seed=0, **kwargs):
    rng = np.random.RandomState(seed)
    with chainlet.using_config('dtype', np.float64):
        link = link_class(*args, **kwargs)
    for p in link.params():
        p.array[...] = rng.uniform(-1, 1, p.shape)
    return link


def _gates(pre, n):
    g = pre.reshape(len(pre), n, 4)
    return g[:, :, 0], g[:, :, 1], g[:, :, 2], g[:, :, 3]


def test_peephole_lstm_two_steps():
    lstm = _float64(L.StatefulPeepholeLSTM, 3, 4)
    x = np.random.RandomState(1).randn(2, 3)
    c, h = np.zeros((2, 4)), np.zeros((2, 4))
    for _ in range(2):
        y = lstm(x)
        pre = x @ lstm.upward.W.array.T + lstm.upward.b.array + h @ lstm.lateral.W.array.T
        a, i, f, o = _gates(pre, 4)
        i = _sig(i + c @ lstm.peep_i.W.array.T)
        f = _sig(f + c @ lstm.peep_f.W.array.T)
        c = np.tanh(a) * i + f * c
        h = _sig(o + c @ lstm.peep_o.W.array.T) * np.tanh(c)
        np.testing.assert_allclose(y.array, h, rtol=1e-12)
        np.testing.assert_allclose(lstm.c.array, c, rtol=1e-12)
    lstm.reset_state()
    assert lstm.c is None and lstm.h is None
    assert lstm.lateral.b is None and lstm.peep_i.b is None


def test_mgu_stateless_and_stateful():
    mgu = _float64(L.StatelessMGU, 3, 4)
    rng = np.random.RandomState(2)
    h, x = rng.randn(2, 4), rng.randn(2, 3)

    def step(h, x):
        f = _sig(np.concatenate([h, x], 1) @ mgu.W_f.W.array.T + mgu.W_f.b.array)
        hb = np.tanh(np.concatenate([f * h, x], 1) @ mgu.W_h.W.array.T + mgu.W_h.b.array)
        return f * hb + (1 - f) * h

    np.testing.assert_allclose(mgu(h, x).array, step(h, x), rtol=1e-12)
    check_backward(mgu, (h, x), rng.randn(2, 4), params=list(mgu.params()), seed=0)
    stateful = _float64(L.StatefulMGU, 3, 4)
    mgu.W_f.copyparams(stateful.W_f)
    mgu.W_h.copyparams(stateful.W_h)
    y1 = stateful(x)
    np.testing.assert_allclose(y1.array, step(np.zeros((2, 4)), x), rtol=1e-12)
    np.testing.assert_allclose(stateful(x).array, step(y1.array, x), rtol=1e-12)


@pytest.mark.parametrize('ratios', [(0.0, 0.0), (1.0, 1.0), (0.5, 0.3)])
def test_zoneout_lstm_masks(ratios):
    lstm = _float64(L.StatefulZoneoutLSTM, 3, 4, c_ratio=ratios[0], h_ratio=ratios[1])
    x = np.random.RandomState(3).randn(5, 3)
    y = lstm(x)
    pre = x @ lstm.upward.W.array.T + lstm.upward.b.array
    a, i, f, o = _gates(pre, 4)
    c_tmp = np.tanh(a) * _sig(i)
    c_mask, h_mask = lstm.c.creator.flag_x, y.creator.flag_x
    np.testing.assert_allclose(lstm.c.array, c_tmp * c_mask, rtol=1e-12)
    np.testing.assert_allclose(y.array, _sig(o) * np.tanh(c_tmp) * h_mask, rtol=1e-12)
    if ratios == (0.0, 0.0):
        assert c_mask.all() and h_mask.all()
    if ratios == (1.0, 1.0):
        assert not c_mask.any() and not h_mask.any()
    with pytest.raises(ValueError, match='train'):
        L.StatefulZoneoutLSTM(3, 4, train=True)


def test_child_sum_tree_lstm():
    node = _float64(L.ChildSumTreeLSTM, 3, 4)
    rng = np.random.RandomState(4)
    cs, hs, x = [rng.randn(2, 4) for _ in range(2)], [rng.randn(2, 4) for _ in range(2)], \
        rng.randn(2, 3)
    c, h = node(*cs, *hs, x)
    pre = x @ node.W_x.W.array.T + node.W_x.b.array
    a, i, o, fx = np.split(pre, 4, axis=1)
    a_h, i_h, o_h = np.split((hs[0] + hs[1]) @ node.W_h_aio.W.array.T, 3, axis=1)
    c_exp = np.tanh(a + a_h) * _sig(i + i_h)
    for c_k, h_k in zip(cs, hs):
        c_exp = c_exp + _sig(fx + h_k @ node.W_h_f.W.array.T) * c_k
    np.testing.assert_allclose(c.array, c_exp, rtol=1e-12)
    np.testing.assert_allclose(h.array, _sig(o + o_h) * np.tanh(c_exp), rtol=1e-12)
    check_backward(node, (*cs, *hs, x), (rng.randn(2, 4), rng.randn(2, 4)),
                   params=list(node.params()), seed=0)
    leaf_c, _ = node(x)
    np.testing.assert_allclose(leaf_c.array, np.tanh(a) * _sig(i), rtol=1e-12)
    with pytest.raises(ValueError):
        node(None, None, None)


def test_nary_tree_lstm_and_none_children():
    node = _float64(L.NaryTreeLSTM, 3, 4, n_ary=2)
    rng = np.random.RandomState(5)
    x = rng.randn(2, 3)
    c, h = node(None, None, None, None, x)
    zeros = np.zeros((2, 4))
    c0, h0 = node(zeros, zeros, zeros, zeros, x)
    np.testing.assert_allclose(c.array, c0.array)
    pre = x @ node.W_x.W.array.T + node.W_x.b.array
    a, i, o, f1, f2 = np.split(pre, 5, axis=1)
    np.testing.assert_allclose(c.array, np.tanh(a) * _sig(i), rtol=1e-12)
    with pytest.raises(ValueError, match='expected 5 inputs'):
        node(zeros, zeros, x)


def test_chainer7_rnn_module_layout():
    from chainlet.links.rnn import lstm, n_step_rnn, tree_lstm
    assert lstm.LSTM is L.LSTM and n_step_rnn.NStepRNNTanh is L.NStepRNNTanh
    assert tree_lstm.NaryTreeLSTM is L.NaryTreeLSTM
    assert L.rnn.zoneoutlstm.StatefulZoneoutLSTM is L.StatefulZoneoutLSTM
