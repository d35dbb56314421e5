"""spatial_pyramid_pooling_2d: levels of max pooling against a cell-by-cell reference."""
import math

import numpy as np
import pytest

import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def shuffled(shape, dtype):
    size = int(np.prod(shape))
    x = np.random.permutation(size) + np.random.uniform(0.3, 0.7, size)
    return (2 * x / size - 1).astype(dtype).reshape(shape)


def spp_ref(x, height):
    n, c, h, w = x.shape
    levels = []
    for level in range(height):
        bins = 2 ** level
        kh, kw = math.ceil(h / bins), math.ceil(w / bins)
        ph, pw = (kh * bins - h) // 2, (kw * bins - w) // 2
        oh = (h + 2 * ph - kh + kh - 1) // kh + 1
        ow = (w + 2 * pw - kw + kw - 1) // kw + 1
        y = np.full((n, c, oh, ow), -np.inf)
        for i in range(oh):
            for j in range(ow):
                r0, c0 = max(i * kh - ph, 0), max(j * kw - pw, 0)
                r1, c1 = max(i * kh - ph + kh, 0), max(j * kw - pw + kw, 0)
                patch = x[:, :, r0:r1, c0:c1]
                if patch.size:
                    y[:, :, i, j] = patch.max(axis=(2, 3))
        levels.append(y.reshape(n, -1, 1, 1))
    return np.concatenate(levels, axis=1).astype(x.dtype)


class TestSpatialPyramidPooling2D(PytestFunctionTestCase):
    params = [{'shape': (2, 3, 9, 8), 'height': 3}, {'shape': (1, 2, 4, 5), 'height': 2},
              {'shape': (1, 1, 6, 6), 'height': 1}]

    def generate_inputs(self):
        return shuffled(self.shape, self.dtype),

    def forward(self, inputs, device):
        return F.spatial_pyramid_pooling_2d(inputs[0], self.height, pooling='max'),

    def forward_expected(self, inputs):
        return spp_ref(inputs[0], self.height),


def test_output_size_and_deprecated_pooling_class():
    x = shuffled((2, 3, 9, 8), np.float32)
    y = F.spatial_pyramid_pooling_2d(x, 3, pooling='max')
    assert y.shape == (2, 3 * (1 + 4 + 16), 1, 1)
    with pytest.warns(DeprecationWarning, match='pooling_class is deprecated'):
        y2 = F.spatial_pyramid_pooling_2d(x, 3, F.MaxPooling2D)
    np.testing.assert_array_equal(y.array, y2.array)


def test_image_smaller_than_the_finest_grid():
    # 3 rows cut into 8 bins: windows of padding only give -inf, as in Chainer.
    x = shuffled((1, 1, 3, 8), np.float64)
    y = F.spatial_pyramid_pooling_2d(x, 4, pooling='max')
    np.testing.assert_array_equal(y.array, spp_ref(x, 4))
    assert np.isinf(y.array).any()


@pytest.mark.parametrize('kwargs,err,match', [
    ({}, ValueError, 'expected exactly one of the arguments pooling and pooling_class'),
    ({'pooling': 'max', 'pooling_class': F.MaxPooling2D}, ValueError, 'exactly one'),
    ({'pooling': 'avg'}, ValueError, "argument pooling: expected 'max'"),
])
def test_bad_pooling(kwargs, err, match):
    with pytest.raises(err, match=match):
        F.spatial_pyramid_pooling_2d(np.zeros((1, 1, 4, 4), np.float32), 2, **kwargs)


def test_bad_inputs():
    with pytest.raises(type_check.InvalidType, match='expected a floating-point dtype'):
        F.spatial_pyramid_pooling_2d(np.zeros((1, 1, 4, 4), np.int32), 2, pooling='max')
    with pytest.raises(ValueError, match='argument x: expected ndim 4'):
        F.spatial_pyramid_pooling_2d(np.zeros((1, 4, 4), np.float32), 2, pooling='max')
    with pytest.raises(ValueError, match='argument pyramid_height: expected an int >= 1'):
        F.spatial_pyramid_pooling_2d(np.zeros((1, 1, 4, 4), np.float32), 0, pooling='max')
