"""shift, local_convolution_2d, dilated_convolution_2d, deformable_convolution_2d_sampler."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.functions.connection import local_convolution_2d as local_module
from chainlet.functions.connection import shift as shift_module
from chainlet.testing import PytestFunctionTestCase


def test_connection_package_attributes_are_modules():
    # As in Chainer: F.connection.X is the module, whose node classes tests import.
    assert shift_module.shift is F.shift
    assert local_module.LocalConvolution2DFunction is not None
    assert F.connection.deconvolution_nd.DeconvolutionND is not None


# -- shift --

def _shift_reference(x, kh, kw, dy, dx):
    n_groups = kh * kw
    c = x.shape[1]
    size = c // n_groups
    taps = list(range(n_groups))
    centre = (n_groups - 1) // 2
    taps[centre], taps[-1] = taps[-1], taps[centre]
    y = np.zeros_like(x)
    h, w = x.shape[2:]
    for ch in range(c):
        g = taps[min(ch // size, n_groups - 1)]
        oy, ox = (g // kw - kh // 2) * dy, (g % kw - kw // 2) * dx
        for i in range(h):
            for j in range(w):
                if 0 <= i - oy < h and 0 <= j - ox < w:
                    y[:, ch, i, j] = x[:, ch, i - oy, j - ox]
    return y


class TestShift(PytestFunctionTestCase):
    params = [{'c': 9, 'ksize': (3, 3), 'dilate': (1, 1)},
              {'c': 11, 'ksize': (3, 3), 'dilate': (1, 1)},
              {'c': 5, 'ksize': (1, 5), 'dilate': (2, 2)},
              {'c': 7, 'ksize': (5, 1), 'dilate': (3, -1)},
              {'c': 49, 'ksize': (7, 7), 'dilate': (1, 1)}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, self.c, 4, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.shift(inputs[0], self.ksize, self.dilate),

    def forward_expected(self, inputs):
        return _shift_reference(inputs[0], *self.ksize, *self.dilate),


def test_shift_int_arguments_and_errors():
    x = np.random.uniform(-1, 1, (1, 9, 3, 3)).astype(np.float32)
    np.testing.assert_array_equal(F.shift(x, 3, 2).array, F.shift(x, (3, 3), (2, 2)).array)
    with pytest.raises(ValueError, match=r'shift: argument ksize: expected positive odd sizes'):
        F.shift(x, 2)
    with pytest.raises(TypeError, match='shift: argument dilate: expected an int or a pair'):
        F.shift(x, 3, 1.5)
    with pytest.raises(TypeError, match='shift: argument x: expected at least kh \\* kw = 25'):
        F.shift(x, 5)
    with pytest.raises(TypeError, match='shift: argument x: expected ndim 4'):
        F.shift(x[0], 3)
    with pytest.raises(TypeError, match='shift: argument x: expected a floating-point dtype'):
        F.shift(x.astype(np.int32), 3)


# -- local_convolution_2d --

def _local_reference(x, W, b, stride):
    n = x.shape[0]
    out_c, oh, ow, _, kh, kw = W.shape
    y = np.zeros((n, out_c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * stride[0]:i * stride[0] + kh, j * stride[1]:j * stride[1] + kw]
            y[:, :, i, j] = np.einsum('nckl,ockl->no', patch.astype(np.float64),
                                      W[:, i, j].astype(np.float64))
    if b is not None:
        y += b
    return y.astype(x.dtype)


class TestLocalConvolution2D(PytestFunctionTestCase):
    params = [{'x_shape': (2, 3, 4, 4), 'W_shape': (6, 2, 2, 3, 3, 3), 'stride': (1, 1),
               'bias': True},
              {'x_shape': (1, 2, 5, 4), 'W_shape': (3, 2, 3, 2, 2, 2), 'stride': (2, 1),
               'bias': False},
              {'x_shape': (0, 1, 3, 3), 'W_shape': (2, 1, 1, 1, 3, 3), 'stride': (1, 1),
               'bias': True}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = np.random.uniform(-1, 1, self.W_shape).astype(self.dtype)
        if not self.bias:
            return x, W
        return x, W, np.random.uniform(-1, 1, self.W_shape[:3]).astype(self.dtype)

    def forward(self, inputs, device):
        return F.local_convolution_2d(*inputs, stride=self.stride),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        return _local_reference(x, W, inputs[2] if self.bias else None, self.stride),


def test_local_convolution_with_shared_filters_is_a_convolution():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3, 5, 5)).astype(np.float32)
    w = rng.uniform(-1, 1, (4, 3, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 4).astype(np.float32)
    W = np.broadcast_to(w[:, None, None], (4, 2, 2, 3, 3, 3)).copy()
    B = np.broadcast_to(b[:, None, None], (4, 2, 2)).copy()
    node = local_module.LocalConvolution2DFunction(2)
    y = node.apply((x, W, B))[0]
    np.testing.assert_allclose(y.array, F.convolution_2d(x, w, b, stride=2).array, rtol=1e-5,
                               atol=1e-5)


def test_local_convolution_mixed_dtypes_keep_each_dtype():
    rng = np.random.RandomState(1)
    x = chainlet.Variable(rng.uniform(-1, 1, (2, 3, 4, 4)).astype(np.float16))
    W = chainlet.Variable(rng.uniform(-1, 1, (2, 2, 2, 3, 3, 3)))
    y = F.local_convolution_2d(x, W)
    assert y.dtype == np.float16
    gx, gW = chainlet.grad([y], [x, W], [np.ones(y.shape, np.float16)])
    assert gx.dtype == np.float16 and gW.dtype == np.float64
    gradient_check.check_backward(F.local_convolution_2d, (x.array, W.array),
                                  np.ones(y.shape, np.float16), dtype=np.float64, atol=5e-3,
                                  rtol=5e-3)


@pytest.mark.parametrize('args,match', [
    ((np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 3, 3, 3))),
     r'local_convolution_2d: argument W: expected 2 input channels on axis 3'),
    ((np.zeros((1, 2, 4, 4)), np.zeros((1, 3, 2, 2, 3, 3))),
     r'local_convolution_2d: argument W: expected \(2, 2\) output positions'),
    ((np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 2, 3, 3)), np.zeros((2, 2, 2))),
     r'local_convolution_2d: argument b: expected shape \(1, 2, 2\)'),
    ((np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 2, 3, 3)), np.zeros((1, 2, 2), np.float32)),
     r'local_convolution_2d: argument b: expected dtype float64'),
    ((np.zeros((1, 2, 4, 4)), np.zeros((1, 2, 2, 2, 3))),
     r'local_convolution_2d: argument W: expected ndim 6'),
])
def test_local_convolution_errors(args, match):
    with pytest.raises(TypeError, match=match):
        F.local_convolution_2d(*args)


# -- dilated_convolution_2d --

@pytest.mark.parametrize('cover_all', [False, True])
def test_dilated_convolution_is_convolution_with_dilate(cover_all):
    rng = np.random.RandomState(2)
    x = rng.uniform(-1, 1, (2, 3, 4, 3)).astype(np.float32)
    W = rng.uniform(-1, 1, (2, 3, 3, 3)).astype(np.float32)
    b = rng.uniform(-1, 1, 2).astype(np.float32)
    y = F.dilated_convolution_2d(x, W, b, 2, 2, 2, cover_all)
    expected = F.convolution_2d(x, W, b, 2, 2, cover_all, dilate=2)
    np.testing.assert_array_equal(y.array, expected.array)
    assert y.shape == ((2, 2, 3, 2) if cover_all else (2, 2, 2, 2))
    gradient_check.check_backward(
        lambda x, W, b: F.dilated_convolution_2d(x, W, b, 2, 2, 2, cover_all), (x, W, b),
        rng.uniform(-1, 1, y.shape).astype(np.float32), dtype=np.float64, atol=1e-4,
        rtol=1e-3)
    with pytest.raises(TypeError, match='dilated_convolution_2d: argument W'):
        F.dilated_convolution_2d(x, W[:, :2], b, dilate=2)


# -- deformable_convolution_2d_sampler --

@pytest.mark.parametrize('params', [(1, 1, 1, 1, 1, 1), (2, 2, 2, 2, 2, 2), (1, 2, 3, 4, 4, 5),
                                    (3, 3, 2, 2, 1, 1)])
def test_deformable_convolution_with_zero_or_whole_pixel_offsets(params):
    kh, kw, sy, sx, ph, pw = params
    rng = np.random.RandomState(3)
    W = rng.normal(size=(2, 3, kh, kw)).astype(np.float32)
    b = rng.uniform(size=2).astype(np.float32)
    x = rng.uniform(size=(2, 3, 9, 9)).astype(np.float32)
    oh, ow = (9 + 2 * ph - kh) // sy + 1, (9 + 2 * pw - kw) // sx + 1
    offset = np.zeros((2, 2 * kh * kw, oh, ow), np.float32)
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, (sy, sx), (ph, pw))
    np.testing.assert_allclose(y.array, F.convolution_2d(x, W, b, (sy, sx), (ph, pw)).array,
                               atol=1e-5, rtol=1e-5)
    # Moving every tap by one stride left and down shifts the output window by one.
    offset[:, :kh * kw] = -sx
    offset[:, kh * kw:] = sy
    y = F.deformable_convolution_2d_sampler(x, offset, W, b, (sy, sx), (ph, pw))
    expected = F.convolution_2d(x, W, b, (sy, sx), (ph + sy, pw + sx)).array[:, :, 2:, :-2]
    np.testing.assert_allclose(y.array, expected, atol=1e-5, rtol=1e-5)


def test_deformable_convolution_gradients():
    rng = np.random.RandomState(4)
    x = rng.uniform(size=(1, 2, 5, 5))
    W = rng.normal(size=(2, 2, 2, 2))
    offset = rng.uniform(-0.9, 0.9, (1, 8, 4, 4)) + 0.05  # away from pixel boundaries
    b = rng.uniform(size=2)
    gy = rng.uniform(-1, 1, (1, 2, 4, 4))
    gradient_check.check_backward(F.deformable_convolution_2d_sampler, (x, offset, W, b), gy,
                                  eps=1e-4, atol=1e-4, rtol=1e-4)
    gradient_check.check_double_backward(
        F.deformable_convolution_2d_sampler, (x, offset, W, b), gy,
        tuple(rng.uniform(-1, 1, a.shape) for a in (x, offset, W, b)), eps=1e-4, atol=1e-3,
        rtol=1e-3)


def test_deformable_convolution_errors():
    x = np.zeros((1, 2, 5, 5), np.float32)
    W = np.zeros((2, 2, 2, 2), np.float32)
    with pytest.raises(TypeError, match=r'deformable_convolution_2d_sampler: argument offset: '
                                        r'expected shape \(1, 8, 4, 4\)'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 8, 3, 3), np.float32), W)
    with pytest.raises(TypeError, match=r'argument W: expected shape \(\*, 2, 2, 2\)'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 8, 4, 4), np.float32), W[:, :1])
    with pytest.raises(TypeError, match=r'argument b: expected shape \(2,\)'):
        F.deformable_convolution_2d_sampler(x, np.zeros((1, 8, 4, 4), np.float32), W,
                                            np.zeros(3, np.float32))
