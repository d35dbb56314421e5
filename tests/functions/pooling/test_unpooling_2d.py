import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _default_outsize(h, k, s, p, cover_all):
    return s * (h - 1) + k - 2 * p - (s - 1 if cover_all else 0)


def unpool_ref(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Pixel-by-pixel reference: add each value to its whole window."""
    kh, kw = _pair(ksize)
    sy, sx = (kh, kw) if stride is None else _pair(stride)
    ph, pw = _pair(pad)
    n, c, h, w = x.shape
    if outsize is None:
        outsize = (_default_outsize(h, kh, sy, ph, cover_all),
                   _default_outsize(w, kw, sx, pw, cover_all))
    oh, ow = outsize
    canvas = np.zeros((n, c, max(oh + 2 * ph, (h - 1) * sy + kh),
                       max(ow + 2 * pw, (w - 1) * sx + kw)))
    for i in range(h):
        for j in range(w):
            canvas[:, :, i * sy:i * sy + kh, j * sx:j * sx + kw] += x[:, :, i:i + 1, j:j + 1]
    return canvas[:, :, ph:ph + oh, pw:pw + ow].astype(x.dtype)


class TestUnpooling2D(PytestFunctionTestCase):
    params = [
        {'shape': (2, 3, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': False},
        {'shape': (2, 3, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': True},
        {'shape': (1, 2, 3, 3), 'ksize': 3, 'stride': 2, 'pad': 1, 'outsize': None,
         'cover_all': False},
        {'shape': (1, 2, 3, 2), 'ksize': (2, 3), 'stride': (2, 1), 'pad': (1, 0),
         'outsize': (4, 4), 'cover_all': True},
        {'shape': (0, 2, 2, 2), 'ksize': 2, 'stride': None, 'pad': 0, 'outsize': None,
         'cover_all': False},
    ]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.unpooling_2d(inputs[0], self.ksize, self.stride, self.pad, self.outsize,
                              self.cover_all),

    def forward_expected(self, inputs):
        return unpool_ref(inputs[0], self.ksize, self.stride, self.pad, self.outsize,
                          self.cover_all),


def test_default_outsize_follows_cover_all():
    x = np.zeros((1, 1, 3, 4), np.float32)
    assert F.unpooling_2d(x, 2).shape == (1, 1, 5, 7)
    assert F.unpooling_2d(x, 2, cover_all=False).shape == (1, 1, 6, 8)
    assert F.unpooling_2d(x, 2, outsize=(6, 8)).shape == (1, 1, 6, 8)


def test_gradient_sums_each_window():
    x = chainlet.Variable(np.zeros((1, 1, 2, 2), np.float64))
    y = F.unpooling_2d(x, 2, cover_all=False)
    y.grad = np.arange(16.0).reshape(1, 1, 4, 4)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[[[10, 18], [42, 50]]]])


@pytest.mark.parametrize('x,kw,err,match', [
    (np.zeros((1, 1, 2, 2), np.int32), {}, TypeError,
     'unpooling_2d: argument x: expected a floating-point dtype'),
    (np.zeros((1, 2, 2), np.float32), {}, TypeError,
     r'unpooling_2d: argument x: expected ndim 4, got shape \(1, 2, 2\)'),
    (np.zeros((1, 1, 2, 2), np.float32), {'outsize': (5, 5)}, type_check.InvalidType,
     r'unpooling_2d: argument x: expected spatial shape \(3, 3\) \(what outsize \(5, 5\) '
     r'pools to'),
    (np.zeros((1, 1, 1, 1), np.float32), {'pad': 1}, ValueError,
     'unpooling_2d: argument pad: padding'),
    (np.zeros((1, 1, 2, 2), np.float32), {'stride': (1, 0)}, ValueError,
     'unpooling_2d: argument stride: expected values >= 1'),
])
def test_errors(x, kw, err, match):
    with pytest.raises(err, match=match):
        F.unpooling_2d(x, 2, **kw)
