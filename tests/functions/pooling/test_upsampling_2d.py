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


def upsample_ref(x, indexes, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Pixel-by-pixel reference: add each value to cell ``indexes`` of its window."""
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
    for a, b, i, j in np.ndindex(x.shape):
        ky, kx = divmod(int(indexes[a, b, i, j]), kw)
        canvas[a, b, i * sy + ky, j * sx + kx] += x[a, b, i, j]
    return canvas[:, :, ph:ph + oh, pw:pw + ow].astype(x.dtype)


class TestUpsampling2D(PytestFunctionTestCase):
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
        kh, kw = _pair(self.ksize)
        x = np.random.uniform(-1, 1, self.shape).astype(self.dtype)
        indexes = np.random.randint(0, kh * kw, self.shape).astype(np.int32)
        return x, indexes

    def forward(self, inputs, device):
        x, indexes = inputs
        return F.upsampling_2d(x, indexes.array, self.ksize, self.stride, self.pad,
                               self.outsize, self.cover_all),

    def forward_expected(self, inputs):
        x, indexes = inputs
        return upsample_ref(x, indexes, self.ksize, self.stride, self.pad, self.outsize,
                            self.cover_all),


@pytest.mark.parametrize('shape,kw', [
    ((2, 3, 4, 6), dict(ksize=2)),
    ((1, 2, 5, 7), dict(ksize=3, stride=2, pad=1)),
    ((1, 2, 5, 4), dict(ksize=(2, 3), stride=(1, 2), pad=(1, 1), cover_all=False)),
])
def test_upsampling_is_the_gradient_of_max_pooling(shape, kw):
    x = chainlet.Variable(np.random.permutation(np.prod(shape)).reshape(shape).astype(
        np.float64))
    y, idx = F.max_pooling_2d(x, return_indices=True, **kw)
    gy = np.random.standard_normal(y.shape)
    y.grad = gy
    y.backward()
    up = F.upsampling_2d(gy, idx, outsize=shape[2:], **kw)
    np.testing.assert_array_equal(up.array, x.grad)


@pytest.mark.parametrize('indexes,kw,err,match', [
    (np.zeros((1, 1, 2, 3), np.int32), {}, TypeError,
     r'upsampling_2d: argument indexes: expected shape \(1, 1, 2, 2\)'),
    (np.zeros((1, 1, 2, 2), np.float32), {}, TypeError,
     'upsampling_2d: argument indexes: expected an integer dtype'),
    (np.full((1, 1, 2, 2), 4, np.int32), {}, ValueError,
     r'upsampling_2d: argument indexes: expected values in \[0, 4\)'),
    ([[[[0, 0], [0, 0]]]], {}, TypeError,
     'upsampling_2d: argument indexes: expected an integer ndarray, got list'),
    (np.zeros((1, 1, 2, 2), np.int32), {'outsize': (3, 5)}, type_check.InvalidType,
     r'upsampling_2d: argument x: expected spatial shape \(2, 3\) \(what outsize'),
])
def test_errors(indexes, kw, err, match):
    x = np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(err, match=match):
        F.upsampling_2d(x, indexes, 2, **kw)
