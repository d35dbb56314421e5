import numpy as np
import pytest

import chainlet
import chainlet.functions as F
import chainlet.links as L
from chainlet.gradient_check import check_backward


@pytest.mark.parametrize('nobias', [True, False])
@pytest.mark.parametrize('groups', [1, 2])
def test_convolution_from_params(nobias, groups):
    rng = np.random.RandomState(0)
    W = rng.randn(4, 6 // groups, 3, 3).astype(np.float32)
    b = rng.randn(4).astype(np.float32)
    conv = L.Convolution2D.from_params(chainlet.Variable(W), b, stride=2, pad=1,
                                       nobias=nobias, groups=groups)
    assert conv.in_channels == 6 and conv.out_channels == 4 and conv.ksize == (3, 3)
    np.testing.assert_array_equal(conv.W.array, W)
    assert (conv.b is None) == nobias
    x = rng.randn(2, 6, 5, 5).astype(np.float32)
    expected = F.convolution_2d(x, W, None if nobias else b, stride=2, pad=1, groups=groups)
    np.testing.assert_allclose(conv(x).array, expected.array, rtol=1e-6)
    nd = L.ConvolutionND.from_params(W[:, :, :, 0], None if nobias else b, nobias=nobias,
                                     groups=groups)
    assert nd.ndim == 1 and nd.W.shape == (4, 6 // groups, 3)
    with pytest.raises(ValueError, match='out_channels'):
        L.Convolution2D.from_params(W, np.zeros(5, np.float32), groups=groups)


def test_dilated_convolution_2d():
    rng = np.random.RandomState(1)
    conv = L.DilatedConvolution2D(None, 2, 3, stride=2, pad=2, dilate=2,
                                  initialW=rng.randn(2, 3, 3, 3), initial_bias=rng.randn(2))
    x = rng.randn(2, 3, 4, 3)
    y = conv(x)
    expected = F.convolution_2d(x, conv.W.array, conv.b.array, stride=2, pad=2, dilate=2)
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-12)
    check_backward(conv, x, rng.randn(*y.shape), params=[conv.W, conv.b], seed=0)
    assert L.DilatedConvolution2D(2, 3, pad=2, dilate=2)(x.astype(np.float32)).shape[1] == 2


def test_mlp_convolution_2d():
    rng = np.random.RandomState(2)
    block = L.MLPConvolution2D(None, (4, 5), 3, activation=F.sigmoid)
    x = rng.randn(2, 3, 6, 6).astype(np.float32)
    y = block(x)
    expected = block[1](F.sigmoid(block[0](x)))  # no activation after the last conv
    np.testing.assert_array_equal(y.array, expected.array)
    assert block[0].W.shape == (4, 3, 3, 3) and block[1].W.shape == (5, 4, 1, 1)
    with pytest.raises(TypeError, match='sequence'):
        L.MLPConvolution2D(3, 4, 3)


def test_parameter_link():
    a = np.arange(3, dtype=np.float32)
    link = L.Parameter(a)
    assert link.W.array is a
    y = link()
    assert y is link.W
    F.sum(y * y).backward()
    np.testing.assert_array_equal(link.W.grad, 2 * a)


def test_simplified_dropconnect():
    rng = np.random.RandomState(3)
    layer = L.SimplifiedDropconnect(None, 2, ratio=0.5)
    x = rng.randn(4, 3, 2).astype(np.float32)
    layer(x)
    assert layer.W.shape == (2, 6)
    mask = rng.rand(4, 2, 6) >= 0.5
    y = layer(x, True, mask)
    W = layer.W.array * mask * 2.0
    expected = np.einsum('ijk,ik->ij', W, x.reshape(4, 6)) + layer.b.array
    np.testing.assert_allclose(y.array, expected, rtol=1e-5)
    plain = layer(x, train=False)
    np.testing.assert_allclose(plain.array, x.reshape(4, 6) @ layer.W.array.T + layer.b.array,
                               rtol=1e-5)


def test_local_convolution_2d():
    rng = np.random.RandomState(4)
    with chainlet.using_config('dtype', np.float64):
        conv = L.LocalConvolution2D(None, 2, ksize=3, stride=1)
    x = rng.randn(2, 3, 4, 5)
    y = conv(x)
    assert conv.W.shape == (2, 2, 3, 3, 3, 3) and conv.b.shape == (2, 2, 3)
    expected = np.zeros((2, 2, 2, 3))
    for i in range(2):
        for j in range(3):
            patch = x[:, :, i:i + 3, j:j + 3]
            expected[:, :, i, j] = np.einsum('nckl,ockl->no', patch, conv.W.array[:, i, j])
    np.testing.assert_allclose(y.array, expected + conv.b.array, rtol=1e-10)
    check_backward(conv, x, rng.randn(2, 2, 2, 3), params=[conv.W, conv.b], seed=0)
    fixed = L.LocalConvolution2D(3, 2, in_size=4, ksize=3, nobias=True)
    assert fixed.W.shape == (2, 2, 2, 3, 3, 3) and fixed.b is None


def test_deformable_convolution_2d_starts_as_plain_convolution():
    rng = np.random.RandomState(5)
    conv = L.DeformableConvolution2D(None, 2, 3, stride=2, pad=1, offset_initialW=0,
                                     deform_initialW=chainlet.initializers.LeCunNormal())
    x = rng.rand(2, 3, 7, 7).astype(np.float32)
    y = conv(x)
    assert not conv.offset_conv.W.array.any()  # offsets start at zero
    assert conv.offset_conv.W.shape == (18, 3, 3, 3)
    expected = F.convolution_2d(x, conv.deform_conv.W, conv.deform_conv.b, stride=2, pad=1)
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-5, atol=1e-6)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert conv.offset_conv.W.grad is not None and conv.deform_conv.W.grad is not None


@pytest.mark.parametrize('groups', [1, 2])
def test_deconvolution_from_params(groups):
    rng = np.random.RandomState(6)
    W = rng.randn(6, 4 // groups, 3, 3).astype(np.float32)
    b = rng.randn(4).astype(np.float32)
    deconv = L.Deconvolution2D.from_params(W, b, stride=2, pad=1, groups=groups)
    assert (deconv.in_channels, deconv.out_channels) == (6, 4)
    x = rng.randn(1, 6, 3, 3).astype(np.float32)
    expected = F.deconvolution_2d(x, W, b, stride=2, pad=1, groups=groups)
    np.testing.assert_allclose(deconv(x).array, expected.array, rtol=1e-5)
    nd = L.DeconvolutionND.from_params(W[..., 0], None, nobias=True, groups=groups)
    assert nd.ndim == 1 and nd.b is None and nd.W.shape == (6, 4 // groups, 3)
    with pytest.raises(ValueError, match='out_channels'):
        L.Deconvolution2D.from_params(W, np.zeros(3, np.float32), groups=groups)


def test_embed_id_from_params():
    W = np.arange(10, dtype=np.float32).reshape(5, 2)
    embed = L.EmbedID.from_params(chainlet.Variable(W), ignore_label=-1)
    np.testing.assert_array_equal(embed(np.array([4, -1], np.int32)).array, [[8, 9], [0, 0]])
    with pytest.raises(ValueError, match='2-d'):
        L.EmbedID.from_params(np.zeros(3, np.float32))


def test_mlp_convolution_2d_refuses_wscale_and_takes_initializers_by_keyword():
    with pytest.raises(TypeError, match='wscale'):  # Chainer v1's positional wscale
        L.MLPConvolution2D(3, (4,), 3, 1, 0, F.relu, 1.0)
    with pytest.raises(ValueError, match='wscale'):
        L.MLPConvolution2D(3, (4,), 3, wscale=1.0)
    with pytest.raises(TypeError, match='init_w'):
        L.MLPConvolution2D(3, (4,), 3, init_w=1.0)
    block = L.MLPConvolution2D(3, (4, 2), 3, conv_init=chainlet.initializers.One(),
                               bias_init=chainlet.initializers.Constant(2.0))
    assert (block[0].W.array == 1).all() and (block[1].b.array == 2).all()
    two_args = L.MLPConvolution2D((4, 2), 3)  # (out_channels, ksize): in_channels inferred
    assert two_args(np.ones((1, 5, 4, 4), np.float32)).shape == (1, 2, 2, 2)


def test_deformable_convolution_2d_defaults_are_chainers():
    # Chainer 7.8.1: the offset predictor is a Convolution2D with its default (LeCunNormal)
    # weights and the sampling filter starts at zero (so the first outputs are the bias).
    conv = L.DeformableConvolution2D(3, 2, 3)
    assert conv.offset_conv.W.array.any() and not conv.deform_conv.W.array.any()
    assert not conv.offset_conv.b.array.any() and not conv.deform_conv.b.array.any()
    y = conv(np.random.RandomState(0).rand(1, 3, 5, 5).astype(np.float32))
    assert not y.array.any()
