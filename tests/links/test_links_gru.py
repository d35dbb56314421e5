import numpy as np
import pytest

import chainlet
import chainlet.links as L
from chainlet.gradient_check import check_backward


def _sigmoid(a):
    return 1 / (1 + np.exp(-a))


def _reference(link, h, x):
    def lin(child, v):
        return v @ child.W.array.T + child.b.array
    r = _sigmoid(lin(link.W_r, x) + lin(link.U_r, h))
    z = _sigmoid(lin(link.W_z, x) + lin(link.U_z, h))
    h_bar = np.tanh(lin(link.W, x) + lin(link.U, r * h))
    return z * h_bar + (1 - z) * h


def _float64(link_class, *args, rng):
    with chainlet.using_config('dtype', np.float64):
        link = link_class(*args, bias_init=0.1)
    for p in link.params():
        p.array[...] = rng.randn(*p.shape) * 0.5
    return link


def test_stateless_gru_forward_backward():
    rng = np.random.RandomState(0)
    cell = _float64(L.StatelessGRU, 3, 4, rng=rng)
    assert sorted(name for name, _ in cell.namedlinks(skipself=True)) == [
        '/U', '/U_r', '/U_z', '/W', '/W_r', '/W_z']
    h, x = rng.randn(2, 4), rng.randn(2, 3)
    np.testing.assert_allclose(cell(h, x).array, _reference(cell, h, x), rtol=1e-12)
    check_backward(cell, (h, x), rng.randn(2, 4), params=list(cell.params()), seed=0)


def test_stateless_gru_infers_in_size():
    cell = L.StatelessGRU(None, 5)
    y = cell(np.zeros((3, 5), np.float32), np.ones((3, 2), np.float32))
    assert y.shape == (3, 5) and cell.W.W.shape == (5, 2)


@pytest.mark.parametrize('link_class', [L.StatefulGRU, L.GRU])
def test_stateful_gru_keeps_state(link_class):
    rng = np.random.RandomState(1)
    gru = _float64(link_class, 3, 4, rng=rng)
    x1, x2 = rng.randn(2, 3), rng.randn(2, 3)
    y1 = gru(x1)
    # With no state the U links are skipped (Chainer): y = sigmoid(W_z x) * tanh(W x).
    z = _sigmoid(x1 @ gru.W_z.W.array.T + gru.W_z.b.array)
    h_bar = np.tanh(x1 @ gru.W.W.array.T + gru.W.b.array)
    np.testing.assert_allclose(y1.array, z * h_bar, rtol=1e-12)
    assert gru.h is y1
    y2 = gru(x2)
    np.testing.assert_allclose(y2.array, _reference(gru, y1.array, x2), rtol=1e-12)
    gru.set_state(np.ones((2, 4)))
    np.testing.assert_allclose(gru(x1).array, _reference(gru, np.ones((2, 4)), x1),
                               rtol=1e-12)
    gru.reset_state()
    assert gru.h is None


def test_gru_argument_count_and_size_inference():
    gru = L.GRU(4)
    assert gru(np.ones((2, 3), np.float32)).shape == (2, 4)
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match='StatelessGRU'):
        gru(x, x)
    with pytest.raises(ValueError, match='got 0'):
        gru()
