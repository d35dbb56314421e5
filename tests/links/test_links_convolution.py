import numpy as np
import pytest

import chainlet.functions as F
import chainlet.links as L
from chainlet.gradient_check import check_backward


def _x(*shape, seed=0, dtype=np.float32):
    return np.random.RandomState(seed).randn(*shape).astype(dtype)


def test_convolution_2d_forward_and_forms():
    conv = L.Convolution2D(3, 4, 3, stride=2, pad=1)
    x = _x(2, 3, 7, 7)
    y = conv(x)
    expected = F.convolution_2d(x, conv.W.array, conv.b.array, 2, 1).array
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)
    assert conv.W.shape == (4, 3, 3, 3) and conv.b.shape == (4,)
    lazy = L.Convolution2D(4, (3, 2))          # two-argument form
    assert lazy.in_channels is None and lazy.W.array is None
    assert lazy(x).shape == (2, 4, 5, 6)
    assert lazy.W.shape == (4, 3, 3, 2) and lazy.in_channels == 3
    lazy2 = L.Convolution2D(None, 4, 1)
    assert lazy2(x).shape == (2, 4, 7, 7)


def test_convolution_2d_groups_dilate_cover_all():
    conv = L.Convolution2D(4, 6, 3, groups=2, dilate=2, nobias=True)
    assert conv.W.shape == (6, 2, 3, 3) and conv.b is None
    x = _x(1, 4, 8, 8)
    expected = F.convolution_2d(x, conv.W.array, None, dilate=2, groups=2).array
    np.testing.assert_allclose(conv(x).array, expected, rtol=1e-6)
    conv = L.Convolution2D(1, 1, 2, stride=2, cover_all=True)
    assert conv(_x(1, 1, 5, 5)).shape == (1, 1, 3, 3)
    with pytest.raises(ValueError, match='groups'):
        L.Convolution2D(4, 5, 3, groups=2)
    with pytest.raises(ValueError, match='groups'):
        L.Convolution2D(None, 4, 3, groups=2)(_x(1, 3, 4, 4))


def test_convolution_nd_variants():
    x1, x3 = _x(2, 2, 9), _x(1, 2, 4, 5, 6)
    conv1 = L.Convolution1D(2, 3, 3, pad=1)
    np.testing.assert_allclose(
        conv1(x1).array, F.convolution_nd(x1, conv1.W.array, conv1.b.array, pad=1).array,
        rtol=1e-6)
    conv3 = L.Convolution3D(3, 2)  # two-argument form: out_channels=3, ksize=2
    assert conv3(x3).shape == (1, 3, 3, 4, 5) and conv3.W.shape == (3, 2, 2, 2, 2)
    convnd = L.ConvolutionND(3, 2, 3, (1, 2, 3))
    assert convnd(x3).shape == (1, 3, 4, 4, 4)
    assert repr(conv1).startswith('Convolution1D(in_channels=2, out_channels=3, ksize=(3,)')
    assert repr(convnd).startswith('ConvolutionND(ndim=3, in_channels=2')


def test_deconvolution():
    x = _x(2, 3, 4, 4)
    deconv = L.Deconvolution2D(3, 2, 3, stride=2, pad=1)
    assert deconv.W.shape == (3, 2, 3, 3)
    expected = F.deconvolution_2d(x, deconv.W.array, deconv.b.array, 2, 1).array
    np.testing.assert_allclose(deconv(x).array, expected, rtol=1e-6)
    sized = L.Deconvolution2D(2, 3, stride=2, pad=1, outsize=(8, 8))  # in_channels lazy
    assert sized(x).shape == (2, 2, 8, 8) and sized.W.shape == (3, 2, 3, 3)
    grouped = L.Deconvolution2D(4, 6, 3, groups=2)
    assert grouped.W.shape == (4, 3, 3, 3)
    d1 = L.Deconvolution1D(2, 3, 3)
    assert d1(_x(1, 2, 5)).shape == (1, 3, 7)
    d3 = L.DeconvolutionND(3, None, 2, 2, stride=2)
    assert d3(_x(1, 3, 2, 2, 2)).shape == (1, 2, 4, 4, 4)


def test_depthwise_convolution():
    x = _x(2, 3, 5, 5)
    conv = L.DepthwiseConvolution2D(3, 2, 3, pad=1)
    assert conv.W.shape == (2, 3, 3, 3) and conv.b.shape == (6,)
    expected = F.depthwise_convolution_2d(x, conv.W.array, conv.b.array, 1, 1).array
    np.testing.assert_allclose(conv(x).array, expected, rtol=1e-6)
    lazy = L.DepthwiseConvolution2D(None, 2, 3)
    assert lazy.W.array is None and lazy.b.array is None
    assert lazy(x).shape == (2, 6, 3, 3) and lazy.b.shape == (6,)


@pytest.mark.parametrize('make, shape', [
    (lambda w: L.Convolution2D(2, 2, 2, initialW=w((2, 2, 2, 2)), initial_bias=w((2,))),
     (2, 2, 3, 3)),
    (lambda w: L.Convolution1D(2, 3, 2, stride=2, initialW=w((3, 2, 2)),
                               initial_bias=w((3,))), (1, 2, 5)),
    (lambda w: L.Deconvolution2D(2, 3, 2, stride=2, initialW=w((2, 3, 2, 2)),
                                 initial_bias=w((3,))), (1, 2, 2, 2)),
    (lambda w: L.DepthwiseConvolution2D(2, 2, 2, initialW=w((2, 2, 2, 2)),
                                        initial_bias=w((4,))), (1, 2, 3, 3)),
])
def test_gradient_check(make, shape):
    rng = np.random.RandomState(3)
    link = make(lambda s: rng.randn(*s))
    assert link.W.dtype == np.float64
    x = rng.randn(*shape)
    gy = rng.randn(*link(x).shape)
    check_backward(link, x, gy, params=list(link.params()), seed=0)


def test_convolution_2d_reads_compute_mode_when_built():
    import chainlet
    with chainlet.using_config('compute_mode', 'cudnn_fast'):
        fast = L.Convolution2D(3, 2, 3)
    assert fast.cudnn_fast and fast.x_layout is None
    plain = L.Convolution2D(3, 2, 3)
    assert not plain.cudnn_fast
    x = np.zeros((1, 3, 5, 5), np.float32)
    assert plain(x).shape == (1, 2, 3, 3)
    with pytest.raises(RuntimeError, match='cudnn_fast'):
        fast(x)  # as in Chainer: the mode needs cuDNN
