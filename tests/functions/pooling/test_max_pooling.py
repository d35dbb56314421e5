import itertools

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

_FUNCS = {1: F.max_pooling_1d, 2: F.max_pooling_2d, 3: F.max_pooling_3d}


def _outsize(d, k, s, p, cover_all):
    if cover_all:
        return (d + 2 * p - k + s - 1) // s + 1
    return (d + 2 * p - k) // s + 1


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def max_pool_ref(x, ksize, stride=None, pad=0, cover_all=True):
    """Window-by-window max pooling and first-argmax (a slow, obvious reference)."""
    n = x.ndim - 2
    ksize = _tup(ksize, n)
    stride = ksize if stride is None else _tup(stride, n)
    pad = _tup(pad, n)
    outs = tuple(_outsize(d, k, s, p, cover_all)
                 for d, k, s, p in zip(x.shape[2:], ksize, stride, pad))
    big = tuple(d + 2 * p + s for d, p, s in zip(x.shape[2:], pad, stride))
    xp = np.full(x.shape[:2] + big, -np.inf, x.dtype)
    inner = tuple(slice(p, p + d) for p, d in zip(pad, x.shape[2:]))
    xp[(slice(None), slice(None)) + inner] = x
    y = np.empty(x.shape[:2] + outs, x.dtype)
    idx = np.empty(x.shape[:2] + outs, np.intp)
    for o in itertools.product(*[range(v) for v in outs]):
        win = xp[(slice(None), slice(None)) + tuple(
            slice(i * s, i * s + k) for i, s, k in zip(o, stride, ksize))]
        flat = win.reshape(x.shape[:2] + (int(np.prod(ksize)),))
        y[(Ellipsis,) + o] = flat.max(axis=-1)
        idx[(Ellipsis,) + o] = flat.argmax(axis=-1)
    return y, idx


def distinct(shape, dtype):
    """Values in [-1, 1] at least 2 / size apart, so that every maximum is unique."""
    size = int(np.prod(shape))
    return (np.random.permutation(size).reshape(shape) * (2.0 / max(size, 1)) - 1).astype(dtype)


class TestMaxPooling(PytestFunctionTestCase):
    params = [
        # 2x2 windows tiling the image: the fast path without padding.
        {'shape': (2, 3, 4, 4), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': True},
        # Overlapping windows, padding, cover_all adds a partial window.
        {'shape': (2, 2, 5, 6), 'ksize': 3, 'stride': 2, 'pad': 1, 'cover_all': True},
        {'shape': (1, 2, 5, 5), 'ksize': (2, 3), 'stride': (1, 2), 'pad': (1, 0),
         'cover_all': False},
        {'shape': (2, 3, 7), 'ksize': 3, 'stride': 2, 'pad': 1, 'cover_all': True},
        {'shape': (1, 2, 3, 4, 4), 'ksize': 2, 'stride': 2, 'pad': 0, 'cover_all': True},
        {'shape': (1, 1, 2, 3, 2, 3), 'ksize': 2, 'stride': 1, 'pad': 0, 'cover_all': False},
        {'shape': (2, 2, 3, 3), 'ksize': 1, 'stride': 1, 'pad': 0, 'cover_all': True},
        {'shape': (0, 2, 4, 4), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': True},
    ]

    def generate_inputs(self):
        return distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        func = _FUNCS.get(len(self.shape) - 2, F.max_pooling_nd)
        return func(x, self.ksize, self.stride, self.pad, self.cover_all),

    def forward_expected(self, inputs):
        return max_pool_ref(inputs[0], self.ksize, self.stride, self.pad, self.cover_all)[0],


def test_max_pooling_nd_matches_fixed_rank_functions():
    x = distinct((2, 3, 5, 4), np.float32)
    a = F.max_pooling_nd(x, 3, 2, 1).array
    b = F.max_pooling_2d(x, 3, 2, 1).array
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize('shape,kw', [
    ((2, 3, 4, 4), dict(ksize=2)),
    ((2, 2, 5, 7), dict(ksize=3, stride=2, pad=1)),
    ((1, 2, 6, 5), dict(ksize=(3, 2), stride=(1, 2), pad=(2, 1), cover_all=False)),
])
def test_return_indices_are_flat_in_window_argmax(shape, kw):
    x = distinct(shape, np.float64)
    y, idx = F.max_pooling_2d(x, return_indices=True, **kw)
    ey, eidx = max_pool_ref(x, kw['ksize'], kw.get('stride'), kw.get('pad', 0),
                            kw.get('cover_all', True))
    np.testing.assert_array_equal(y.array, ey)
    np.testing.assert_array_equal(idx, eidx)
    assert idx.dtype == np.intp


def test_output_size_follows_cover_all():
    x = np.zeros((1, 1, 5, 5), np.float32)
    assert F.max_pooling_2d(x, 2).shape == (1, 1, 3, 3)
    assert F.max_pooling_2d(x, 2, cover_all=False).shape == (1, 1, 2, 2)
    x = np.zeros((1, 1, 6, 6), np.float32)
    assert F.max_pooling_2d(x, 3, stride=2, pad=1).shape == (1, 1, 4, 4)
    assert F.max_pooling_2d(x, 3, stride=2, pad=1, cover_all=False).shape == (1, 1, 3, 3)


def test_padding_never_wins():
    x = -np.ones((1, 1, 3, 3), np.float32) - np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3)
    y = F.max_pooling_2d(x, 2, stride=1, pad=1).array
    assert (y < 0).all()
    assert y[0, 0, 0, 0] == x[0, 0, 0, 0]


def test_ties_send_the_gradient_to_the_first_maximum():
    x = chainlet.Variable(np.ones((1, 1, 2, 4), np.float32))
    y = F.max_pooling_2d(x, 2)
    y.grad = np.array([[[[1.0, 2.0]]]], np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [[[[1, 0, 2, 0], [0, 0, 0, 0]]]])


def test_overlapping_windows_accumulate_gradient():
    x = chainlet.Variable(np.array([[[0.0, 1.0, 5.0, 2.0, 0.5]]], np.float32))
    y = F.max_pooling_1d(x, 3, stride=1, cover_all=False)
    np.testing.assert_array_equal(y.array, [[[5, 5, 5]]])
    F.sum(y).backward()
    np.testing.assert_array_equal(x.grad, [[[0, 0, 3, 0, 0]]])


def test_infinite_output_gradient_stays_at_the_argmax():
    x = chainlet.Variable(distinct((1, 1, 4, 4), np.float32))
    y = F.max_pooling_2d(x, 2)
    gy = np.zeros(y.shape, np.float32)
    gy[0, 0, 0, 0] = np.inf
    y.grad = gy
    y.backward()
    assert np.isinf(x.grad).sum() == 1
    assert not np.isnan(x.grad).any()


def test_one_by_one_window_does_not_alias_input():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    y = F.max_pooling_2d(x, 1)
    y.array[...] = -1
    np.testing.assert_array_equal(x.ravel(), [0, 1, 2, 3])


def test_double_backward_with_chainlet_grad():
    x = chainlet.Variable(distinct((1, 1, 4, 4), np.float64))
    y = F.max_pooling_2d(x, 2)
    gx, = chainlet.grad([F.sum(y * y)], [x], enable_double_backprop=True)
    # d/dx sum(gx^2) = 2 * d(2 y^2 at argmax)/dx = 8 x at the maxima.
    ggx, = chainlet.grad([F.sum(gx * gx)], [x])
    mask = gx.array != 0
    np.testing.assert_allclose(ggx.array[mask], 8 * x.array[mask])
    assert (ggx.array[~mask] == 0).all()


@pytest.mark.parametrize('func,x,kw,err,match', [
    (F.max_pooling_2d, np.zeros((1, 1, 4, 4), np.int32), {}, TypeError,
     'max_pooling_2d: argument x: expected a floating-point dtype'),
    (F.max_pooling_2d, np.zeros((1, 4, 4), np.float32), {}, TypeError,
     r'max_pooling_2d: argument x: expected ndim 4, got shape \(1, 4, 4\)'),
    (F.max_pooling_1d, np.zeros((1, 1, 4, 4), np.float32), {}, TypeError,
     'max_pooling_1d: argument x: expected ndim 3'),
    (F.max_pooling_3d, np.zeros((1, 1, 4, 4), np.float32), {}, TypeError,
     'max_pooling_3d: argument x: expected ndim 5'),
    (F.max_pooling_nd, np.zeros((2, 4), np.float32), {}, TypeError,
     'max_pooling_nd: argument x: expected ndim >= 3'),
    (F.max_pooling_2d, np.zeros((1, 1, 4, 4), np.float32), {'pad': 2}, ValueError,
     'max_pooling_2d: argument pad: expected values smaller than ksize'),
    (F.max_pooling_2d, np.zeros((1, 1, 3, 3), np.float32), {'ksize': 6, 'pad': 1},
     ValueError, r'max_pooling_2d: argument ksize: expected a window no larger than the '
     r'padded input \(5, 5\)'),
    (F.max_pooling_2d, np.zeros((1, 1, 4, 4), np.float32), {'ksize': (2, 2, 2)}, ValueError,
     'max_pooling_2d: argument ksize: expected an int or a tuple of 2 ints'),
    (F.max_pooling_2d, np.zeros((1, 1, 4, 4), np.float32), {'ksize': 2.0}, TypeError,
     'max_pooling_2d: argument ksize: expected an int'),
    (F.max_pooling_2d, np.zeros((1, 1, 4, 4), np.float32), {'stride': 0}, ValueError,
     'max_pooling_2d: argument stride: expected values >= 1'),
    (F.max_pooling_2d, np.zeros((1, 1, 4, 4), np.float32), {'pad': -1}, ValueError,
     'max_pooling_2d: argument pad: expected values >= 0'),
])
def test_errors(func, x, kw, err, match):
    kw = dict(kw)
    ksize = kw.pop('ksize', 2)
    with pytest.raises(err, match=match):
        func(x, ksize, **kw)
