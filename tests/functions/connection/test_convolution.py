import itertools

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.functions.connection import _conv_utils
from chainlet.functions.connection.convolution_2d import (Convolution2DFunction,
                                                          Convolution2DGradW)
from chainlet.testing import PytestFunctionTestCase, assert_allclose


def _tuple(v, nd):
    return (v,) * nd if isinstance(v, int) else tuple(v)


def conv_ref(x, W, b=None, stride=1, pad=0, cover_all=False, dilate=1, groups=1):
    """Direct convolution: one tensordot per output position (independent of im2col)."""
    nd = x.ndim - 2
    s, p, d = _tuple(stride, nd), _tuple(pad, nd), _tuple(dilate, nd)
    k = W.shape[2:]
    n, c = x.shape[:2]
    out_c = W.shape[0]
    outs = [_conv_utils.get_conv_outsize(x.shape[2 + i], k[i], s[i], p[i], cover_all, d[i])
            for i in range(nd)]
    ext = [max(x.shape[2 + i] + 2 * p[i], (outs[i] - 1) * s[i] + (k[i] - 1) * d[i] + 1)
           for i in range(nd)]
    xp = np.zeros((n, c) + tuple(ext))
    xp[(slice(None), slice(None)) + tuple(slice(p[i], p[i] + x.shape[2 + i])
                                          for i in range(nd))] = x
    y = np.zeros((n, out_c) + tuple(outs))
    icg, ocg = c // groups, out_c // groups
    axes = tuple(range(1, nd + 2))
    for pos in itertools.product(*[range(o) for o in outs]):
        win = tuple(slice(pos[i] * s[i], pos[i] * s[i] + (k[i] - 1) * d[i] + 1, d[i])
                    for i in range(nd))
        for g in range(groups):
            patch = xp[(slice(None), slice(g * icg, (g + 1) * icg)) + win]
            w = W[g * ocg:(g + 1) * ocg].astype(np.float64)
            y[(slice(None), slice(g * ocg, (g + 1) * ocg)) + pos] = \
                np.tensordot(patch, w, (axes, axes))
    if b is not None:
        y += b.reshape((1, out_c) + (1,) * nd)
    return y.astype(x.dtype)


class _ConvCase(PytestFunctionTestCase):
    """Shared body: ``x_shape``, ``W_shape`` and keyword hyper-parameters in ``kw``."""

    nobias = False
    kw: dict = {}
    func = staticmethod(F.convolution_2d)

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
        b = np.random.uniform(-1, 1, self._out_c()).astype(self.dtype)
        return x, W, b

    def _out_c(self):
        return self.W_shape[0]

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return self.func(x, W, b, **self.kw),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return conv_ref(x, W, b, **self.kw),


class TestConvolution2D(_ConvCase):
    params = [
        {'x_shape': (2, 3, 4, 4), 'W_shape': (2, 3, 3, 3), 'kw': {'pad': 1}},
        {'x_shape': (1, 2, 5, 4), 'W_shape': (2, 2, 2, 2),
         'kw': {'stride': 2, 'cover_all': True}},
        {'x_shape': (1, 2, 5, 6), 'W_shape': (3, 2, 2, 3),
         'kw': {'stride': (2, 1), 'pad': (0, 1)}, 'nobias': True},
        {'x_shape': (1, 2, 5, 5), 'W_shape': (2, 2, 2, 2), 'kw': {'dilate': 2, 'pad': 1}},
        {'x_shape': (1, 4, 3, 3), 'W_shape': (6, 2, 2, 2), 'kw': {'groups': 2}},
        {'x_shape': (0, 2, 3, 3), 'W_shape': (2, 2, 2, 2), 'kw': {}},
        # More output channels per group than output positions: the other filter-gradient
        # branch.
        {'x_shape': (2, 2, 2, 2), 'W_shape': (5, 2, 2, 2), 'kw': {}},
        {'x_shape': (2, 4, 2, 3), 'W_shape': (6, 2, 2, 2), 'kw': {'groups': 2}},
    ]


class TestConvolution1D(_ConvCase):
    func = staticmethod(F.convolution_1d)
    params = [
        {'x_shape': (2, 2, 6), 'W_shape': (3, 2, 3), 'kw': {'stride': 2, 'pad': 1}},
        {'x_shape': (1, 4, 5), 'W_shape': (2, 2, 2),
         'kw': {'groups': 2, 'dilate': 2, 'cover_all': True, 'stride': 2}},
    ]


class TestConvolution3D(_ConvCase):
    func = staticmethod(F.convolution_3d)
    params = [
        {'x_shape': (1, 2, 3, 3, 3), 'W_shape': (2, 2, 2, 2, 2), 'kw': {'pad': (1, 0, 0)}},
    ]


class TestConvolutionND(_ConvCase):
    func = staticmethod(F.convolution_nd)
    params = [
        {'x_shape': (1, 1, 3, 2, 3, 2), 'W_shape': (2, 1, 2, 1, 2, 2), 'kw': {}},
        {'x_shape': (2, 2, 4, 3), 'W_shape': (2, 2, 2, 2), 'kw': {'stride': 2, 'pad': 1}},
    ]


def test_double_backward_float64_dilate_groups():
    # A larger case than the parametrized ones, on the second-order path only.
    x = np.random.uniform(-1, 1, (2, 4, 5, 5))
    W = np.random.uniform(-1, 1, (4, 2, 3, 3))
    b = np.random.uniform(-1, 1, 4)

    def f(x, W, b):
        return F.convolution_2d(x, W, b, stride=2, pad=2, dilate=2, groups=2, cover_all=True)

    gy = np.random.standard_normal(f(x, W, b).shape)
    ggs = tuple(np.random.standard_normal(a.shape) for a in (x, W, b))
    chainlet.gradient_check.check_double_backward(f, (x, W, b), gy, ggs)


def test_graph_nodes_have_chainer_names():
    x = chainlet.Variable(np.ones((1, 1, 3, 3)))
    W = chainlet.Variable(np.ones((1, 1, 2, 2)))
    y = F.convolution_2d(x, W)
    assert isinstance(y.creator, Convolution2DFunction)
    gW, = chainlet.grad([F.sum(y)], [W], enable_double_backprop=True)
    assert isinstance(gW.creator, Convolution2DGradW)


def test_im2col_matches_convolution():
    x = np.random.uniform(-1, 1, (2, 3, 5, 4)).astype(np.float32)
    W = np.random.uniform(-1, 1, (4, 3, 2, 3)).astype(np.float32)
    y = F.convolution_2d(x, W, stride=(1, 2), pad=1).array
    col = F.im2col(x, (2, 3), stride=(1, 2), pad=1).array
    expected = np.einsum('ok,nkhw->nohw', W.reshape(4, -1), col)
    assert_allclose(y, expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize('size,k,s,p,cover_all,d,expected', [
    (5, 3, 1, 0, False, 1, 3), (5, 3, 2, 1, False, 1, 3), (5, 2, 2, 0, False, 1, 2),
    (5, 2, 2, 0, True, 1, 3), (7, 3, 1, 0, False, 2, 3), (4, 3, 3, 0, True, 1, 2),
])
def test_get_conv_outsize(size, k, s, p, cover_all, d, expected):
    assert _conv_utils.get_conv_outsize(size, k, s, p, cover_all, d) == expected


def test_cover_all_output_size():
    x = np.ones((1, 1, 5, 5), np.float32)
    W = np.ones((1, 1, 2, 2), np.float32)
    assert F.convolution_2d(x, W, stride=2).shape == (1, 1, 2, 2)
    y = F.convolution_2d(x, W, stride=2, cover_all=True)
    assert y.shape == (1, 1, 3, 3)
    # The extra windows read zeros beyond the image.
    assert float(y.array[0, 0, 2, 2]) == 1.0


def test_mixed_dtypes_follow_chainer():
    # Chainer casts the output to x's dtype and the filter gradient to W's dtype.
    x = chainlet.Variable(np.random.uniform(-1, 1, (1, 2, 3, 3)).astype(np.float32))
    W = chainlet.Variable(np.random.uniform(-1, 1, (2, 2, 2, 2)).astype(np.float16))
    y = F.convolution_2d(x, W)
    assert y.dtype == np.float32
    F.sum(y).backward()
    assert x.grad.dtype == np.float32 and W.grad.dtype == np.float16


def test_output_is_contiguous_and_inputs_untouched():
    x = np.random.uniform(-1, 1, (2, 3, 4, 4)).astype(np.float32)
    W = np.random.uniform(-1, 1, (2, 3, 3, 3)).astype(np.float32)
    x0, W0 = x.copy(), W.copy()
    y = F.convolution_2d(x, W, pad=1)
    assert y.array.flags.c_contiguous
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(W, W0)


def test_no_grad_for_constant_inputs():
    x = np.ones((1, 1, 3, 3), np.float32)
    W = chainlet.Variable(np.ones((1, 1, 2, 2), np.float32))
    F.sum(F.convolution_2d(x, W)).backward()
    np.testing.assert_array_equal(W.grad, np.full((1, 1, 2, 2), 4, np.float32))


# -- errors --

def _xW(x_shape=(2, 3, 5, 5), W_shape=(4, 3, 3, 3), dtype=np.float32):
    return np.zeros(x_shape, dtype), np.zeros(W_shape, dtype)


def test_error_channel_mismatch_message():
    x, W = _xW(W_shape=(4, 2, 3, 3))
    msg = ('convolution_2d: argument W: expected 3 input channels (x has shape (2, 3, 5, 5)), '
           'got W of shape (4, 2, 3, 3)')
    with pytest.raises(type_check.InvalidType) as e:
        F.convolution_2d(x, W)
    assert str(e.value) == msg


def test_error_channel_mismatch_groups():
    x, W = _xW(x_shape=(1, 4, 5, 5), W_shape=(4, 4, 3, 3))
    with pytest.raises(TypeError, match=r'convolution_2d: argument W: expected 2 input '
                                        r'channels per group'):
        F.convolution_2d(x, W, groups=2)
    x, W = _xW(x_shape=(1, 3, 5, 5), W_shape=(4, 1, 3, 3))
    with pytest.raises(TypeError, match=r'convolution_2d: argument x: expected a number of '
                                        r'channels divisible by groups=2'):
        F.convolution_2d(x, W, groups=2)
    x, W = _xW(x_shape=(1, 4, 5, 5), W_shape=(3, 2, 3, 3))
    with pytest.raises(TypeError, match=r'argument W: expected a number of output channels'):
        F.convolution_2d(x, W, groups=2)


def test_error_ndim():
    x, W = _xW(x_shape=(3, 5, 5))
    with pytest.raises(TypeError, match=r'convolution_2d: argument x: expected ndim 4, '
                                        r'got shape \(3, 5, 5\)'):
        F.convolution_2d(x, W)
    x, W = _xW(W_shape=(3, 3, 3))
    with pytest.raises(TypeError, match=r'convolution_2d: argument W: expected ndim 4'):
        F.convolution_2d(x, W)
    with pytest.raises(TypeError, match=r'convolution_1d: argument x: expected ndim 3'):
        F.convolution_1d(*_xW())
    with pytest.raises(TypeError, match=r'convolution_3d: argument x: expected ndim 5'):
        F.convolution_3d(*_xW())
    with pytest.raises(TypeError, match=r'convolution_nd: argument x: expected ndim >= 3'):
        F.convolution_nd(np.zeros((2, 3)), np.zeros((2, 3)))
    with pytest.raises(TypeError, match=r'convolution_nd: argument W: expected ndim 5'):
        F.convolution_nd(np.zeros((1, 1, 3, 3, 3)), np.zeros((1, 1, 2, 2)))


def test_error_integer_dtype():
    x, W = _xW(dtype=np.int32)
    with pytest.raises(TypeError, match=r'convolution_2d: argument x: expected a '
                                        r'floating-point dtype, got int32'):
        F.convolution_2d(x, W)
    x, _ = _xW()
    with pytest.raises(TypeError, match=r'convolution_2d: argument W: expected a '
                                        r'floating-point dtype, got int64'):
        F.convolution_2d(x, np.zeros((4, 3, 3, 3), np.int64))


def test_error_bias():
    x, W = _xW()
    with pytest.raises(TypeError, match=r'convolution_2d: argument b: expected shape \(4,\)'):
        F.convolution_2d(x, W, np.zeros(3, np.float32))
    with pytest.raises(TypeError, match=r'convolution_2d: argument b: expected dtype float32'):
        F.convolution_2d(x, W, np.zeros(4, np.float64))


def test_error_kernel_larger_than_padded_input():
    x, W = _xW(x_shape=(1, 3, 2, 5))
    with pytest.raises(ValueError, match=r'convolution_2d: the kernel does not fit in the '
                                         r'padded input on spatial axis 0'):
        F.convolution_2d(x, W)
    # Padding makes it fit.
    assert F.convolution_2d(x, W, pad=1).shape == (1, 4, 2, 5)
    with pytest.raises(ValueError, match=r'kernel extent 5 \(ksize 3, dilate 2\)'):
        F.convolution_2d(*_xW(x_shape=(1, 3, 4, 4)), dilate=2)


@pytest.mark.parametrize('kw,exc,pattern', [
    ({'stride': 0}, ValueError, r'convolution_2d: argument stride: expected positive'),
    ({'stride': (1, -1)}, ValueError, r'argument stride: expected positive'),
    ({'pad': -1}, ValueError, r'convolution_2d: argument pad: expected >= 0'),
    ({'dilate': 0}, ValueError, r'argument dilate: expected positive'),
    ({'groups': 0}, ValueError, r'argument groups: expected a positive int, got 0'),
    ({'stride': (1, 2, 3)}, ValueError, r'argument stride: expected an int or a sequence of 2'),
    ({'stride': 1.5}, TypeError, r'argument stride: expected an int or a sequence of 2 ints, '
                                 r'got float'),
    ({'pad': 'a'}, TypeError, r'argument pad: expected an int or a sequence'),
    ({'groups': 1.0}, TypeError, r'argument groups: expected a positive int, got float'),
])
def test_error_hyperparameters(kw, exc, pattern):
    with pytest.raises(exc, match=pattern):
        F.convolution_2d(*_xW(), **kw)


def test_dilate_and_groups_are_keyword_only():
    x, W = _xW()
    with pytest.raises(TypeError):
        F.convolution_2d(x, W, None, 1, 0, False, 2)


class TestConvolution2DSlow(_ConvCase):
    pytestmark = pytest.mark.slow
    params = [
        {'x_shape': (2, 6, 7, 6), 'W_shape': (6, 2, 3, 2),
         'kw': {'stride': (2, 3), 'pad': (2, 1), 'dilate': (1, 2), 'groups': 3,
                'cover_all': True}},
        {'x_shape': (3, 1, 6, 6), 'W_shape': (2, 1, 5, 5), 'kw': {'pad': 2}},
    ]


def test_convolution_2d_cudnn_fast_is_refused_on_the_cpu():
    # Chainer 7.8: cudnn_fast=True (cuDNN's channels-last mode) has no CPU implementation.
    x = np.ones((1, 2, 4, 4), np.float32)
    W = np.ones((3, 2, 2, 2), np.float32)
    np.testing.assert_array_equal(F.convolution_2d(x, W, cudnn_fast=False).array,
                                  F.convolution_2d(x, W).array)
    with pytest.raises(RuntimeError, match='convolution_2d: cudnn_fast=True'):
        F.convolution_2d(x, W, cudnn_fast=True)
