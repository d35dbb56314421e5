import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.gradient_check import check_backward


def test_bias_learned_and_given():
    rng = np.random.RandomState(0)
    x, b = rng.randn(3, 2, 4), rng.randn(2)
    layer = L.Bias(1, (2,), initial_bias=b)
    assert layer.b.dtype == np.float64
    np.testing.assert_allclose(layer(x).array, x + b[:, None])
    check_backward(layer, x, rng.randn(3, 2, 4), params=[layer.b], seed=0)
    given = L.Bias(1)
    assert not hasattr(given, 'b')
    np.testing.assert_allclose(given(x, b).array, x + b[:, None])
    with pytest.raises(TypeError, match='expected 2'):
        given(x)
    with pytest.raises(AssertionError):  # Chainer's error type, kept too
        layer(x, b)


def test_scale_with_bias_and_given_W():
    rng = np.random.RandomState(1)
    x, W, b = rng.randn(3, 2, 4), rng.randn(2), rng.randn(2)
    layer = L.Scale(1, (2,), bias_term=True, initialW=W, initial_bias=b)
    np.testing.assert_allclose(layer(x).array, x * W[:, None] + b[:, None])
    check_backward(layer, x, rng.randn(3, 2, 4), params=[layer.W, layer.bias.b], seed=0)
    given = L.Scale(1, None, bias_term=True, bias_shape=(2,), initial_bias=b)
    assert not hasattr(given, 'W')
    np.testing.assert_allclose(given(x, W).array, x * W[:, None] + b[:, None])
    assert L.Scale(1, (2,)).W.array.tolist() == [1.0, 1.0]  # default initial W is 1
    with pytest.raises(ValueError, match='bias_shape'):
        L.Scale(1, None, True, None)
    with pytest.raises(TypeError, match='expected 1'):
        layer(x, W)


def test_swish_lazy_and_fixed_shape():
    rng = np.random.RandomState(2)
    x = rng.randn(4, 3, 2).astype(np.float32)
    act = L.Swish(None)
    assert act.beta.array is None
    y = act(x)
    assert act.beta.shape == (3, 2)
    np.testing.assert_allclose(y.array, x / (1 + np.exp(-x)), rtol=1e-6)
    per_channel = L.Swish((3,), beta_init=2.0)
    expected = x / (1 + np.exp(-2.0 * x))
    np.testing.assert_allclose(per_channel(x).array, expected, rtol=1e-5)
    with chainlet.using_config('dtype', np.float64):
        act64 = L.Swish((3,))
    check_backward(act64, x.astype(np.float64), rng.randn(4, 3, 2), params=[act64.beta],
                   seed=0)


def test_inception_branches():
    rng = np.random.RandomState(3)
    block = L.Inception(None, 2, 2, 3, 2, 4, 5)
    x = rng.randn(2, 3, 5, 5).astype(np.float32)
    y = block(x)
    assert y.shape == (2, 14, 5, 5)
    relu = F.relu
    expected = relu(F.concat((
        block.conv1(x),
        block.conv3(relu(block.proj3(x))),
        block.conv5(relu(block.proj5(x))),
        block.projp(F.max_pooling_2d(x, 3, stride=1, pad=1))), axis=1))
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
    assert sorted(n for n, _ in block.namedlinks(skipself=True)) == [
        '/conv1', '/conv3', '/conv5', '/proj3', '/proj5', '/projp']


@pytest.mark.parametrize('pooltype', ['max', 'avg'])
def test_inception_bn_branches(pooltype):
    rng = np.random.RandomState(4)
    block = L.InceptionBN(3, 2, 2, 3, 2, 4, pooltype, 5)
    x = rng.randn(2, 3, 5, 5).astype(np.float32)
    y = block(x)
    assert y.shape == (2, 2 + 3 + 4 + 5, 5, 5)
    relu = F.relu
    pool = (F.max_pooling_2d(x, 3, stride=1, pad=1, cover_all=False) if pooltype == 'max'
            else F.average_pooling_2d(x, 3, stride=1, pad=1))
    with chainlet.using_config('train', False):  # deterministic: running statistics
        y = block(x)
        h33 = relu(block.conv33an(block.conv33a(relu(block.proj33n(block.proj33(x))))))
        expected = F.concat((
            relu(block.conv1n(block.conv1(x))),
            relu(block.conv3n(block.conv3(relu(block.proj3n(block.proj3(x)))))),
            relu(block.conv33bn(block.conv33b(h33))),
            relu(block.poolpn(block.poolp(pool)))), axis=1)
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
    assert block.conv3.b is None  # convolutions without bias, normalized instead


def test_inception_bn_reducing_and_invalid():
    block = L.InceptionBN(3, 0, 2, 3, 2, 4, 'avg', None, stride=2)
    y = block(np.ones((1, 3, 6, 6), np.float32))
    assert y.shape == (1, 3 + 4 + 3, 3, 3)  # the pooled input passes through
    with pytest.raises(ValueError, match='stride 1 and proj_pool'):
        L.InceptionBN(3, 2, 2, 3, 2, 4, 'max', None)
    with pytest.raises(AssertionError):  # Chainer's error type, kept too
        L.InceptionBN(3, 2, 2, 3, 2, 4, 'max', 5, stride=2)
    with pytest.raises(ValueError, match='pooltype'):
        L.InceptionBN(3, 2, 2, 3, 2, 4, 'median', 5)
    with chainlet.using_config('dtype', np.float16):
        assert L.InceptionBN(3, 2, 2, 3, 2, 4, 'max', 5).conv1n.beta.dtype == np.float16
