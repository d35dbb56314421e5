import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def depthwise_ref(x, W, b=None, stride=1, pad=0):
    """Per channel and multiplier: a direct single-channel convolution."""
    sy, sx = (stride, stride) if isinstance(stride, int) else stride
    ph, pw = (pad, pad) if isinstance(pad, int) else pad
    n, c, h, w = x.shape
    m, _, kh, kw = W.shape
    xp = np.zeros((n, c, h + 2 * ph, w + 2 * pw))
    xp[:, :, ph:ph + h, pw:pw + w] = x
    oh = (h + 2 * ph - kh) // sy + 1
    ow = (w + 2 * pw - kw) // sx + 1
    y = np.zeros((n, c * m, oh, ow))
    for ci in range(c):
        for mi in range(m):
            for i in range(oh):
                for j in range(ow):
                    patch = xp[:, ci, i * sy:i * sy + kh, j * sx:j * sx + kw]
                    y[:, ci * m + mi, i, j] = (patch * W[mi, ci]).sum(axis=(1, 2))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(x.dtype)


class TestDepthwiseConvolution2D(PytestFunctionTestCase):
    nobias = False
    kw: dict = {}
    params = [
        {'x_shape': (2, 3, 4, 4), 'W_shape': (2, 3, 3, 3), 'kw': {'pad': 1}},
        {'x_shape': (1, 2, 5, 4), 'W_shape': (1, 2, 2, 2), 'kw': {'stride': (2, 1)},
         'nobias': True},
        {'x_shape': (0, 2, 3, 3), 'W_shape': (3, 2, 2, 2), 'kw': {}},
    ]

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
        b = np.random.uniform(-1, 1, self.W_shape[0] * self.W_shape[1]).astype(self.dtype)
        return x, W, b

    def forward(self, inputs, device):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return F.depthwise_convolution_2d(x, W, b, **self.kw),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        b = inputs[2] if len(inputs) == 3 else None
        return depthwise_ref(x, W, b, **self.kw),


def test_channel_order_is_channel_major():
    # Output channel c * multiplier + m comes from input channel c and filter m (Chainer).
    x = np.zeros((1, 2, 1, 1), np.float32)
    x[0, 1] = 1.0
    W = np.arange(1, 7, dtype=np.float32).reshape(3, 2, 1, 1)
    y = F.depthwise_convolution_2d(x, W).array.ravel()
    np.testing.assert_array_equal(y, [0, 0, 0, 2, 4, 6])


def test_error_channel_mismatch():
    with pytest.raises(TypeError, match=r'depthwise_convolution_2d: argument W: expected 3 '
                                        r'channels on axis 1 \(x has shape \(1, 3, 4, 4\)\), '
                                        r'got W of shape \(2, 2, 3, 3\)'):
        F.depthwise_convolution_2d(np.zeros((1, 3, 4, 4)), np.zeros((2, 2, 3, 3)))


def test_error_bias_and_ndim_and_dtype():
    x, W = np.zeros((1, 3, 4, 4)), np.zeros((2, 3, 3, 3))
    with pytest.raises(TypeError, match=r'depthwise_convolution_2d: argument b: expected '
                                        r'shape \(6,\)'):
        F.depthwise_convolution_2d(x, W, np.zeros(3))
    with pytest.raises(TypeError, match=r'depthwise_convolution_2d: argument x: expected '
                                        r'ndim 4'):
        F.depthwise_convolution_2d(np.zeros((3, 4, 4)), W)
    with pytest.raises(TypeError, match=r'depthwise_convolution_2d: argument W: expected a '
                                        r'floating-point dtype, got int64'):
        F.depthwise_convolution_2d(x, W.astype(np.int64))


def test_error_hyperparameters_and_kernel_size():
    x, W = np.zeros((1, 3, 4, 4)), np.zeros((2, 3, 3, 3))
    with pytest.raises(ValueError, match=r'depthwise_convolution_2d: argument stride'):
        F.depthwise_convolution_2d(x, W, stride=0)
    with pytest.raises(ValueError, match=r'depthwise_convolution_2d: argument pad'):
        F.depthwise_convolution_2d(x, W, pad=-1)
    with pytest.raises(ValueError, match=r'depthwise_convolution_2d: the kernel does not fit'):
        F.depthwise_convolution_2d(np.zeros((1, 3, 2, 2)), W)
