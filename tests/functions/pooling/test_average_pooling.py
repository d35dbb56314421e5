import itertools

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

_FUNCS = {1: F.average_pooling_1d, 2: F.average_pooling_2d, 3: F.average_pooling_3d}


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def average_pool_ref(x, ksize, stride=None, pad=0, pad_value=0):
    """Window-by-window mean in float64 (padded cells excluded when pad_value is None)."""
    n = x.ndim - 2
    ksize = _tup(ksize, n)
    stride = ksize if stride is None else _tup(stride, n)
    pad = _tup(pad, n)
    dims = x.shape[2:]
    outs = tuple((d + 2 * p - k) // s + 1 for d, k, s, p in zip(dims, ksize, stride, pad))
    inner = (slice(None), slice(None)) + tuple(slice(p, p + d) for p, d in zip(pad, dims))
    xp = np.zeros(x.shape[:2] + tuple(d + 2 * p for d, p in zip(dims, pad)))
    xp[inner] = x
    real = np.zeros(xp.shape[2:])
    real[inner[2:]] = 1
    y = np.empty(x.shape[:2] + outs)
    for o in itertools.product(*[range(v) for v in outs]):
        sl = tuple(slice(i * s, i * s + k) for i, s, k in zip(o, stride, ksize))
        total = xp[(slice(None), slice(None)) + sl].sum(axis=tuple(range(2, 2 + n)))
        count = real[sl].sum() if pad_value is None else np.prod(ksize)
        y[(Ellipsis,) + o] = total / count
    return y.astype(x.dtype)


class TestAveragePooling(PytestFunctionTestCase):
    params = [
        {'shape': (2, 3, 4, 4), 'ksize': 2, 'stride': None, 'pad': 0, 'pad_value': 0},
        {'shape': (2, 2, 5, 6), 'ksize': 3, 'stride': 2, 'pad': 1, 'pad_value': 0},
        {'shape': (2, 2, 5, 6), 'ksize': 3, 'stride': 2, 'pad': 1, 'pad_value': None},
        {'shape': (1, 2, 5, 5), 'ksize': (2, 3), 'stride': (1, 2), 'pad': (1, 0),
         'pad_value': None},
        {'shape': (2, 3, 7), 'ksize': 3, 'stride': 1, 'pad': 2, 'pad_value': None},
        {'shape': (1, 2, 3, 4, 4), 'ksize': 2, 'stride': 1, 'pad': 1, 'pad_value': 0},
        {'shape': (1, 1, 2, 3, 2, 3), 'ksize': 2, 'stride': 1, 'pad': 0, 'pad_value': 0},
        {'shape': (0, 2, 4, 4), 'ksize': 2, 'stride': None, 'pad': 0, 'pad_value': 0},
    ]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        func = _FUNCS.get(len(self.shape) - 2, F.average_pooling_nd)
        return func(x, self.ksize, self.stride, self.pad, self.pad_value),

    def forward_expected(self, inputs):
        return average_pool_ref(inputs[0], self.ksize, self.stride, self.pad, self.pad_value),


def test_pad_value_none_excludes_padding_at_borders():
    x = np.ones((1, 1, 3, 3), np.float32)
    np.testing.assert_array_equal(F.average_pooling_2d(x, 2, 1, 1, pad_value=None).array,
                                  np.ones((1, 1, 4, 4), np.float32))
    y0 = F.average_pooling_2d(x, 2, 1, 1).array
    assert y0[0, 0, 0, 0] == 0.25 and y0[0, 0, 1, 1] == 1


def test_float16_sums_in_float32():
    x = np.full((1, 1, 1, 64), 1000.0, np.float16)
    y = F.average_pooling_2d(x, (1, 64))
    assert y.dtype == np.float16
    assert y.array.item() == 1000.0


def test_gradient_spreads_evenly():
    x = chainlet.Variable(np.zeros((1, 1, 4), np.float64))
    F.sum(F.average_pooling_1d(x, 2, stride=1)).backward()
    np.testing.assert_allclose(x.grad, [[[0.5, 1.0, 1.0, 0.5]]])


@pytest.mark.parametrize('func,x,kw,err,match', [
    (F.average_pooling_2d, np.zeros((1, 1, 4, 4), np.int64), {}, TypeError,
     'average_pooling_2d: argument x: expected a floating-point dtype'),
    (F.average_pooling_2d, np.zeros((1, 4, 4), np.float32), {}, TypeError,
     'average_pooling_2d: argument x: expected ndim 4'),
    (F.average_pooling_nd, np.zeros((4,), np.float32), {}, TypeError,
     'average_pooling_nd: argument x: expected ndim >= 3'),
    (F.average_pooling_2d, np.zeros((1, 1, 4, 4), np.float32), {'pad_value': 1}, ValueError,
     'average_pooling_2d: argument pad_value: expected 0 or None, got 1'),
    (F.average_pooling_1d, np.zeros((1, 1, 4), np.float32), {'pad': 3}, ValueError,
     'average_pooling_1d: argument pad: expected values smaller than ksize'),
    (F.average_pooling_3d, np.zeros((1, 1, 1, 4, 4), np.float32), {}, ValueError,
     'average_pooling_3d: argument ksize: expected a window no larger than the padded input'),
])
def test_errors(func, x, kw, err, match):
    with pytest.raises(err, match=match):
        func(x, 2, **kw)
