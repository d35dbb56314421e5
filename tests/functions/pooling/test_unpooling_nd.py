"""unpooling_nd / unpooling_1d / unpooling_3d against a window-by-window reference."""
import itertools

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _tup(v, n):
    return (v,) * n if isinstance(v, int) else tuple(v)


def unpool_nd_ref(x, ksize, stride=None, pad=0, outsize=None, cover_all=True):
    """Add every input cell to its whole window of a zero image, then crop the padding."""
    n = x.ndim - 2
    ksize = _tup(ksize, n)
    stride = ksize if stride is None else _tup(stride, n)
    pad = _tup(pad, n)
    if outsize is None:
        outsize = tuple(s * (d - 1) + k - 2 * p - (s - 1 if cover_all else 0)
                        for d, k, s, p in zip(x.shape[2:], ksize, stride, pad))
    big = tuple(max(o + 2 * p, (d - 1) * s + k)
                for o, p, d, s, k in zip(outsize, pad, x.shape[2:], stride, ksize))
    canvas = np.zeros(x.shape[:2] + big)
    for i in itertools.product(*[range(d) for d in x.shape[2:]]):
        win = tuple(slice(j * s, j * s + k) for j, s, k in zip(i, stride, ksize))
        canvas[(slice(None), slice(None)) + win] += x[(slice(None), slice(None)) + i][
            (...,) + (None,) * n]
    crop = tuple(slice(p, p + o) for p, o in zip(pad, outsize))
    return canvas[(slice(None), slice(None)) + crop].astype(x.dtype)


class TestUnpoolingND(PytestFunctionTestCase):
    params = [
        {'shape': (2, 3, 5), 'ksize': 3, 'stride': 3, 'pad': 1, 'cover_all': True},
        {'shape': (1, 2, 2, 3, 2), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': False},
        {'shape': (1, 2, 2, 3, 2), 'ksize': (2, 3, 1), 'stride': (1, 2, 1), 'pad': (1, 0, 0),
         'cover_all': True},
        {'shape': (1, 1, 2, 2, 2, 2), 'ksize': 2, 'stride': 1, 'pad': 0, 'cover_all': False},
        {'shape': (0, 2, 3), 'ksize': 2, 'stride': None, 'pad': 0, 'cover_all': False},
    ]

    def setup(self):
        if self.dtype == np.float16:  # up to 16 overlapping copies add up in float16
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.unpooling_nd(inputs[0], self.ksize, self.stride, self.pad,
                              cover_all=self.cover_all),

    def forward_expected(self, inputs):
        return unpool_nd_ref(inputs[0], self.ksize, self.stride, self.pad,
                             cover_all=self.cover_all),


@pytest.mark.parametrize('shape,ksize', [((2, 3, 4), 2), ((2, 3, 2, 3, 2), (1, 2, 3))])
def test_fixed_rank_wrappers_match_nd(shape, ksize):
    x = np.random.uniform(-1, 1, shape).astype(np.float32)
    func = {3: F.unpooling_1d, 5: F.unpooling_3d}[len(shape)]
    np.testing.assert_array_equal(func(x, ksize).array, F.unpooling_nd(x, ksize).array)


@pytest.mark.parametrize('func', [F.unpooling_1d, F.unpooling_3d, F.max_pooling_1d,
                                  F.max_pooling_3d, F.average_pooling_1d,
                                  F.average_pooling_3d])
def test_wrong_rank_is_a_value_error_and_an_invalid_type(func):
    x = np.zeros((2, 3, 4, 4), np.float32)
    with pytest.raises(ValueError, match=rf'{func.__name__}: argument x: expected ndim '):
        func(x, 2)
    with pytest.raises(type_check.InvalidType):
        func(x, 2)


def test_given_outsize_and_empty_output():
    x = np.ones((1, 1, 3), np.float32)
    y = F.unpooling_nd(x, 2, outsize=(7,), cover_all=False)
    np.testing.assert_array_equal(y.array, [[[1, 1, 1, 1, 1, 1, 0]]])
    # ksize 1, stride 3, pad 1 on 2 cells: the output has no cells at all, as in Chainer.
    assert F.unpooling_nd(np.ones((1, 1, 2), np.float32), 1, 3, 1).shape == (1, 1, 0)


def test_outsize_that_does_not_pool_back():
    x = np.ones((1, 1, 3, 3), np.float32)
    with pytest.raises(type_check.InvalidType,
                       match=r'unpooling_nd: argument x: expected spatial shape \(4, 4\)'):
        F.unpooling_nd(x, 2, outsize=(8, 8))


def test_gradient_sums_windows():
    x = chainlet.Variable(np.array([[[1.0, 2.0]]]))
    y = F.unpooling_nd(x, 2, cover_all=False)
    gx, = chainlet.grad([y], [x], [np.array([[[1.0, 2.0, 3.0, 4.0]]])])
    np.testing.assert_array_equal(gx.array, [[[3.0, 7.0]]])


def test_errors():
    with pytest.raises(type_check.InvalidType, match='unpooling_nd: argument x: expected a '
                       'floating-point dtype'):
        F.unpooling_nd(np.zeros((1, 1, 2), np.int32), 2)
    with pytest.raises(type_check.InvalidType, match=r'unpooling_nd: argument x: expected '
                       r'ndim >= 3'):
        F.unpooling_nd(np.zeros((1, 2), np.float32), 2)
    with pytest.raises(ValueError, match='unpooling_nd: argument ksize: expected an int or a '
                       'tuple of 2 ints'):
        F.unpooling_nd(np.zeros((1, 1, 2, 2), np.float32), (2, 2, 2))
