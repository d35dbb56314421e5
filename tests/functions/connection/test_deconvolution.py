import itertools

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.functions.connection import _conv_utils
from chainlet.functions.connection.deconvolution_2d import Deconvolution2DFunction
from chainlet.testing import PytestFunctionTestCase


def _tuple(v, nd):
    return (v,) * nd if isinstance(v, int) else tuple(v)


def deconv_ref(x, W, b=None, stride=1, pad=0, outsize=None, dilate=1, groups=1):
    """Direct scatter: every input pixel adds its weighted filter to the padded output."""
    nd = x.ndim - 2
    s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    k = W.shape[2:]
    n, c = x.shape[:2]
    ocg = W.shape[1]
    out_c = ocg * groups
    sizes = x.shape[2:]
    if outsize is None:
        outsize = [_conv_utils.get_deconv_outsize(sizes[i], k[i], s[i], p[i], d=d[i])
                   for i in range(nd)]
    ext = [max(outsize[i] + 2 * p[i], (sizes[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1)
           for i in range(nd)]
    y = np.zeros((n, out_c) + tuple(ext))
    icg = c // groups
    for pos in itertools.product(*[range(m) for m in sizes]):
        win = tuple(slice(pos[i] * s[i], pos[i] * s[i] + (k[i] - 1) * d[i] + 1, d[i])
                    for i in range(nd))
        for g in range(groups):
            xv = x[(slice(None), slice(g * icg, (g + 1) * icg)) + pos].astype(np.float64)
            y[(slice(None), slice(g * ocg, (g + 1) * ocg)) + win] += \
                np.tensordot(xv, W[g * icg:(g + 1) * icg], (1, 0))
    y = y[(slice(None), slice(None)) + tuple(slice(p[i], p[i] + outsize[i])
                                             for i in range(nd))]
    if b is not None:
        y = y + b.reshape((1, out_c) + (1,) * nd)
    return y.astype(x.dtype)


class _DeconvCase(PytestFunctionTestCase):
    nobias = False
    kw: dict = {}
    func = staticmethod(F.deconvolution_2d)

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=5e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=5e-2)

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = np.random.uniform(-1, 1, self.W_shape).astype(self.dtype)
        if self.nobias:
            return x, W
        b = np.random.uniform(-1, 1, self.W_shape[1] * self.kw.get('groups', 1))
        return x, W, b.astype(self.dtype)

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return self.func(x, W, b, **self.kw),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return deconv_ref(x, W, b, **self.kw),


class TestDeconvolution2D(_DeconvCase):
    params = [
        {'x_shape': (2, 3, 3, 3), 'W_shape': (3, 2, 3, 3), 'kw': {'pad': 1}},
        {'x_shape': (1, 2, 2, 3), 'W_shape': (2, 3, 3, 2), 'kw': {'stride': (2, 1)}},
        # outsize one larger than the default.
        {'x_shape': (1, 2, 2, 2), 'W_shape': (2, 1, 3, 3),
         'kw': {'stride': 2, 'pad': 1, 'outsize': (4, 4)}, 'nobias': True},
        # outsize one smaller than the default: the matching convolution needs cover_all.
        {'x_shape': (1, 2, 2, 2), 'W_shape': (2, 1, 2, 2),
         'kw': {'stride': 2, 'outsize': (3, 4)}},
        {'x_shape': (1, 2, 3, 2), 'W_shape': (2, 2, 2, 2), 'kw': {'dilate': 2}},
        {'x_shape': (1, 4, 2, 2), 'W_shape': (4, 3, 2, 2), 'kw': {'groups': 2, 'stride': 2}},
        {'x_shape': (0, 2, 2, 2), 'W_shape': (2, 2, 2, 2), 'kw': {}},
    ]


class TestDeconvolution1D(_DeconvCase):
    func = staticmethod(F.deconvolution_1d)
    params = [
        {'x_shape': (2, 2, 4), 'W_shape': (2, 3, 3), 'kw': {'stride': 2, 'pad': 1}},
        {'x_shape': (1, 4, 3), 'W_shape': (4, 1, 2),
         'kw': {'groups': 2, 'dilate': 2, 'outsize': (7,), 'stride': 2}},
    ]


class TestDeconvolution3D(_DeconvCase):
    func = staticmethod(F.deconvolution_3d)
    params = [
        {'x_shape': (1, 2, 2, 2, 2), 'W_shape': (2, 2, 2, 2, 2), 'kw': {'stride': (2, 1, 1)}},
    ]


class TestDeconvolutionND(_DeconvCase):
    func = staticmethod(F.deconvolution_nd)
    params = [
        {'x_shape': (1, 1, 2, 2, 1, 2), 'W_shape': (1, 2, 2, 1, 2, 2), 'kw': {}},
        {'x_shape': (2, 2, 3, 2), 'W_shape': (2, 2, 2, 2), 'kw': {'stride': 2, 'pad': 1}},
    ]


@pytest.mark.parametrize('stride,pad,cover_all,dilate,groups', [
    (1, 0, False, 1, 1), (2, 1, False, 1, 1), (2, 0, True, 1, 2), ((3, 2), (1, 2), True, 2, 1),
])
def test_deconvolution_is_adjoint_of_convolution(stride, pad, cover_all, dilate, groups):
    # <conv(x), y> == <x, deconv(y)> with the same filter and outsize = x's spatial shape.
    x = np.random.standard_normal((2, 4, 7, 8))
    W = np.random.standard_normal((6, 4 // groups, 3, 2))
    y = F.convolution_2d(x, W, stride=stride, pad=pad, cover_all=cover_all, dilate=dilate,
                         groups=groups).array
    gy = np.random.standard_normal(y.shape)
    gx = F.deconvolution_2d(gy, W, stride=stride, pad=pad, outsize=x.shape[2:], dilate=dilate,
                            groups=groups).array
    assert gx.shape == x.shape
    np.testing.assert_allclose(np.vdot(y, gy), np.vdot(x, gx), rtol=1e-10)


def test_default_outsize_formula():
    x = np.zeros((10, 1, 5, 10), np.float32)
    W = np.zeros((1, 3, 10, 10), np.float32)
    y = F.deconvolution_2d(x, W, stride=5, pad=5)
    assert y.shape == (10, 3, 5 * 4 + 10 - 10, 5 * 9 + 10 - 10)
    assert F.deconvolution_2d(x[:, :, :2, :2], W[:, :, :2, :2], dilate=3).shape == \
        (10, 3, 1 + 4, 1 + 4)


def test_cover_all_is_set_from_outsize():
    x = np.zeros((1, 1, 2, 2), np.float32)
    W = np.zeros((1, 1, 2, 2), np.float32)
    node = Deconvolution2DFunction(stride=2, outsize=(4, 3))
    y, = node.apply((x, W))
    assert y.shape == (1, 1, 4, 3)
    assert node.cover_all is True
    node = Deconvolution2DFunction(stride=2, outsize=(5, 4))
    node.apply((x, W))
    assert node.cover_all is False
    node = Deconvolution2DFunction(stride=2)
    node.apply((x, W))
    assert node.cover_all is False and node.outsize == (4, 4)


def test_second_order_with_cover_all_outsize():
    x = np.random.uniform(-1, 1, (1, 2, 2, 3))
    W = np.random.uniform(-1, 1, (2, 2, 3, 3))

    def f(x, W):
        return F.deconvolution_2d(x, W, stride=2, pad=1, outsize=(2, 6))

    gy = np.random.standard_normal((1, 2, 2, 6))
    chainlet.gradient_check.check_double_backward(
        f, (x, W), gy, (np.random.standard_normal(x.shape), np.random.standard_normal(W.shape)))


def test_mixed_dtypes():
    x = chainlet.Variable(np.ones((1, 2, 2, 2), np.float32))
    W = chainlet.Variable(np.ones((2, 1, 2, 2), np.float64))
    y = F.deconvolution_2d(x, W)
    assert y.dtype == np.float32
    F.sum(y).backward()
    assert x.grad.dtype == np.float32 and W.grad.dtype == np.float64


def test_error_channel_mismatch():
    with pytest.raises(TypeError, match=r'deconvolution_2d: argument W: expected 3 input '
                                        r'channels on axis 0 \(x has shape \(1, 3, 2, 2\)\), '
                                        r'got W of shape \(2, 3, 2, 2\)'):
        F.deconvolution_2d(np.zeros((1, 3, 2, 2)), np.zeros((2, 3, 2, 2)))


def test_error_bias_shape_with_groups():
    with pytest.raises(TypeError, match=r'deconvolution_2d: argument b: expected shape \(6,\)'):
        F.deconvolution_2d(np.zeros((1, 4, 2, 2)), np.zeros((4, 3, 2, 2)), np.zeros(3),
                           groups=2)


def test_error_ndim_and_dtype():
    with pytest.raises(TypeError, match=r'deconvolution_2d: argument x: expected ndim 4'):
        F.deconvolution_2d(np.zeros((1, 3, 2)), np.zeros((3, 3, 2, 2)))
    with pytest.raises(TypeError, match=r'deconvolution_1d: argument x: expected ndim 3'):
        F.deconvolution_1d(np.zeros((1, 3, 2, 2)), np.zeros((3, 3, 2, 2)))
    with pytest.raises(TypeError, match=r'deconvolution_2d: argument x: expected a '
                                        r'floating-point dtype, got int64'):
        F.deconvolution_2d(np.zeros((1, 3, 2, 2), np.int64), np.zeros((3, 3, 2, 2)))


def test_error_outsize():
    x = np.zeros((1, 1, 2, 2))
    W = np.zeros((1, 1, 3, 3))
    with pytest.raises(ValueError, match=r'deconvolution_2d: argument outsize: expected a size '
                                         r'whose convolution gives the input size 2 on '
                                         r'spatial axis 1'):
        F.deconvolution_2d(x, W, stride=2, pad=1, outsize=(3, 7))
    with pytest.raises(ValueError, match=r'argument outsize: expected an int or a sequence '
                                         r'of 2 ints'):
        F.deconvolution_2d(x, W, outsize=(3,))
    with pytest.raises(ValueError, match=r'deconvolution_2d: the output would be empty'):
        F.deconvolution_2d(x, W, pad=3)


def test_error_empty_output_is_assertion_error():
    # Chainer asserts that the estimated output size is positive; its tests expect that type.
    x = np.zeros((2, 3, 4), np.float32)
    W = np.zeros((3, 2, 2), np.float32)
    with pytest.raises(AssertionError, match=r'deconvolution_nd: the output would be empty'):
        F.deconvolution_nd(x, W, pad=10)


@pytest.mark.parametrize('kw,exc', [
    ({'stride': 0}, ValueError), ({'pad': -2}, ValueError), ({'dilate': (1, 0)}, ValueError),
    ({'groups': -1}, ValueError), ({'stride': 'x'}, TypeError),
])
def test_error_hyperparameters(kw, exc):
    name = next(iter(kw))
    with pytest.raises(exc, match=rf'deconvolution_2d: argument {name}: expected'):
        F.deconvolution_2d(np.zeros((1, 2, 3, 3)), np.zeros((2, 2, 2, 2)), **kw)


class TestDeconvolution2DSlow(_DeconvCase):
    pytestmark = pytest.mark.slow
    params = [
        {'x_shape': (2, 6, 3, 4), 'W_shape': (6, 2, 3, 2),
         'kw': {'stride': (2, 3), 'pad': (1, 1), 'dilate': (2, 1), 'groups': 3,
                'outsize': (8, 10)}},
    ]
