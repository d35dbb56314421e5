import numpy as np
import pytest

import chainlet.functions as F
import chainlet.links as L
from chainlet.gradient_check import check_backward


def test_embed_id():
    np.random.seed(0)
    embed = L.EmbedID(5, 3, ignore_label=-1)
    assert embed.W.shape == (5, 3) and embed.W.dtype == np.float32
    ids = np.array([[0, 4], [-1, 2]], np.int32)
    y = embed(ids)
    assert y.shape == (2, 2, 3)
    np.testing.assert_array_equal(y.array[0, 1], embed.W.array[4])
    np.testing.assert_array_equal(y.array[1, 0], 0.0)
    np.testing.assert_array_equal(y.array, F.embed_id(ids, embed.W.array, -1).array)
    assert abs(float(L.EmbedID(200, 50).W.array.std()) - 1.0) < 0.05  # Normal(1.0)
    rng = np.random.RandomState(1)
    embed64 = L.EmbedID(4, 2, initialW=rng.randn(4, 2))
    check_backward(embed64, np.array([1, 3, 1], np.int32), rng.randn(3, 2),
                   params=[embed64.W], seed=0)
    assert repr(embed) == 'EmbedID(in_size=5, out_size=3, ignore_label=-1)'


def test_bilinear():
    rng = np.random.RandomState(2)
    layer = L.Bilinear(2, 3, 4, initialW=rng.randn(2, 3, 4),
                       initial_bias=(rng.randn(2, 4), rng.randn(3, 4), rng.randn(4)))
    e1, e2 = rng.randn(5, 2), rng.randn(5, 3)
    y = layer(e1, e2)
    expected = (np.einsum('ij,ik,jkl->il', e1, e2, layer.W.array) + e1 @ layer.V1.array +
                e2 @ layer.V2.array + layer.b.array)
    np.testing.assert_allclose(y.array, expected, rtol=1e-10)
    check_backward(layer, (e1, e2), rng.randn(5, 4), params=list(layer.params()), seed=0)
    nobias = L.Bilinear(2, 3, 4, nobias=True)
    assert [n for n, _ in nobias.namedparams()] == ['/W']
    with pytest.raises(TypeError, match='initial_bias'):
        L.Bilinear(2, 3, 4, initial_bias=0)


def test_highway():
    rng = np.random.RandomState(3)
    layer = L.Highway(3, init_Wh=rng.randn(3, 3), init_Wt=rng.randn(3, 3),
                      init_bh=rng.randn(3))
    np.testing.assert_array_equal(layer.transform.b.array, -1.0)
    x = rng.randn(4, 3)
    h = np.maximum(x @ layer.plain.W.array.T + layer.plain.b.array, 0)
    t = 1 / (1 + np.exp(-(x @ layer.transform.W.array.T + layer.transform.b.array)))
    np.testing.assert_allclose(layer(x).array, h * t + x * (1 - t), rtol=1e-10)
    smooth = L.Highway(3, activate=F.tanh, init_Wh=rng.randn(3, 3), init_Wt=rng.randn(3, 3),
                       init_bh=rng.randn(3), init_bt=rng.randn(3))
    check_backward(smooth, x, rng.randn(4, 3), params=list(smooth.params()), seed=0)


def test_prelu():
    prelu = L.PReLU()
    assert prelu.W.shape == () and float(prelu.W.array) == 0.25
    np.testing.assert_allclose(prelu(np.array([[-4.0, 2.0]], np.float32)).array,
                               [[-1.0, 2.0]])
    rng = np.random.RandomState(4)
    per_channel = L.PReLU(shape=(3,), init=np.array([0.1, 0.2, 0.3]))
    x = rng.randn(2, 3, 4)
    x[np.abs(x) < 0.05] = 0.5  # away from the kink
    expected = np.where(x >= 0, x, x * per_channel.W.array[:, None])
    np.testing.assert_allclose(per_channel(x).array, expected)
    check_backward(per_channel, x, rng.randn(2, 3, 4), params=[per_channel.W], seed=0)


def test_maxout():
    rng = np.random.RandomState(5)
    w, b = rng.randn(2, 3, 4), rng.randn(2, 3)
    layer = L.Maxout(4, 2, 3, initialW=w, initial_bias=b)
    assert layer.linear.W.shape == (6, 4)
    x = rng.randn(5, 4)
    z = np.einsum('opi,ni->nop', w, x) + b
    np.testing.assert_allclose(layer(x).array, z.max(axis=2), rtol=1e-10)
    check_backward(layer, x, rng.randn(5, 2), params=list(layer.params()), seed=0)
    assert L.Maxout(4, 2, 3, initial_bias=None).linear.b is None
    lazy = L.Maxout(None, 2, 2)
    assert lazy(np.ones((1, 5), np.float32)).shape == (1, 2) and lazy.linear.W.shape == (4, 5)
    with pytest.raises(ValueError, match='initialW'):
        L.Maxout(4, 2, 3, initialW=np.zeros((6, 4)))


def test_embed_id_without_ignore_label_attribute():
    # An EmbedID pickled before ``ignore_label`` existed falls back to the class default.
    embed = L.EmbedID(3, 4)
    del embed.ignore_label
    assert embed(np.arange(2, dtype=np.int32)).shape == (2, 4)


def test_maxout_plain_callable_sees_piecewise_layout():
    seen = []

    def init_w(array):
        seen.append(array.shape)
        array[...] = np.arange(array.size).reshape(array.shape)

    def init_b(array):
        seen.append(array.shape)
        array[...] = np.arange(3)  # one value per piece, broadcast over the outputs

    layer = L.Maxout(2, 4, 3, initialW=init_w, initial_bias=init_b)
    assert seen == [(4, 3, 2), (4, 3)]
    np.testing.assert_array_equal(layer.linear.W.array, np.arange(24).reshape(12, 2))
    np.testing.assert_array_equal(layer.linear.b.array, np.tile(np.arange(3), 4))


def test_bilinear_initial_array_shapes_checked():
    W = np.zeros((2, 3, 4), np.float32)
    V1, V2, b = np.zeros((2, 4), 'f'), np.zeros((3, 4), 'f'), np.zeros(4, 'f')
    L.Bilinear(2, 3, 4, False, W, (V1, V2, b))
    bad = [(np.zeros((3, 3, 4), 'f'), (V1, V2, b)), (W, (np.zeros((3, 4), 'f'), V2, b)),
           (W, (V1, np.zeros((4, 4), 'f'), b)), (W, (V1, V2, np.zeros(5, 'f')))]
    for initialW, initial_bias in bad:
        with pytest.raises(ValueError, match='expected an array of shape'):
            L.Bilinear(2, 3, 4, False, initialW, initial_bias)
    with pytest.raises(AssertionError):  # Chainer's error type, kept too
        L.Bilinear(2, 3, 4, True, np.zeros((3, 3, 4), 'f'))
