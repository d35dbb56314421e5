import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def im2col_ref(x, ksize, stride=1, pad=0, cover_all=False, dilate=1):
    pair = (lambda v: (v, v) if isinstance(v, int) else tuple(v))
    (kh, kw), (sy, sx), (ph, pw), (dy, dx) = pair(ksize), pair(stride), pair(pad), pair(dilate)
    n, c, h, w = x.shape
    ekh, ekw = kh + (kh - 1) * (dy - 1), kw + (kw - 1) * (dx - 1)
    extra_h, extra_w = (sy - 1, sx - 1) if cover_all else (0, 0)
    oh = (h + 2 * ph - ekh + extra_h) // sy + 1
    ow = (w + 2 * pw - ekw + extra_w) // sx + 1
    xp = np.zeros((n, c, h + 2 * ph + sy, w + 2 * pw + sx), x.dtype)
    xp[:, :, ph:ph + h, pw:pw + w] = x
    y = np.zeros((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(oh):
        for j in range(ow):
            for u in range(kh):
                for v in range(kw):
                    y[:, :, u, v, i, j] = xp[:, :, i * sy + u * dy, j * sx + v * dx]
    return y.reshape(n, c * kh * kw, oh, ow)


class TestIm2Col(PytestFunctionTestCase):
    kw: dict = {}
    params = [
        {'shape': (2, 2, 4, 3), 'kw': {'ksize': 2}},
        {'shape': (1, 2, 5, 5), 'kw': {'ksize': (2, 3), 'stride': (2, 1), 'pad': (1, 0)}},
        {'shape': (1, 1, 5, 4), 'kw': {'ksize': 2, 'stride': 2, 'cover_all': True}},
        {'shape': (1, 2, 5, 5), 'kw': {'ksize': 2, 'dilate': 2, 'pad': 1}},
        {'shape': (0, 2, 3, 3), 'kw': {'ksize': 3}},
    ]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.im2col(inputs[0], **self.kw),

    def forward_expected(self, inputs):
        return im2col_ref(inputs[0], **self.kw),


def test_example_layout():
    x = np.arange(2 * 3 * 3, dtype=np.float32).reshape(1, 2, 3, 3)
    y = F.im2col(x, 2).array
    assert y.shape == (1, 8, 2, 2)
    # Channel first, then kernel row, then kernel column.
    np.testing.assert_array_equal(y[0, :, 0, 1], [1, 2, 4, 5, 10, 11, 13, 14])


def test_gradient_counts_overlaps():
    x = chainlet.Variable(np.zeros((1, 1, 3, 3)))
    F.sum(F.im2col(x, 2)).backward()
    np.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_errors():
    x = np.zeros((1, 1, 3, 3), np.float32)
    with pytest.raises(TypeError, match=r'im2col: argument x: expected ndim 4'):
        F.im2col(x[0], 2)
    with pytest.raises(TypeError, match=r'im2col: argument x: expected a floating-point'):
        F.im2col(x.astype(np.int32), 2)
    with pytest.raises(ValueError, match=r'im2col: argument ksize: expected positive'):
        F.im2col(x, 0)
    with pytest.raises(ValueError, match=r'im2col: argument stride: expected positive'):
        F.im2col(x, 2, stride=0)
    with pytest.raises(ValueError, match=r'im2col: argument pad: expected >= 0'):
        F.im2col(x, 2, pad=-1)
    with pytest.raises(ValueError, match=r'im2col: the kernel does not fit'):
        F.im2col(x, 4)
