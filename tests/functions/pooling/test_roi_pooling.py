"""RoI pooling and RoIAlign (max and average) against pixel-by-pixel NumPy references."""
import math

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def shuffled(shape, dtype):
    """Distinct values in [-1, 1] in random order: no ties for the max functions."""
    size = int(np.prod(shape))
    x = np.random.permutation(size) + np.random.uniform(0.3, 0.7, size)
    return (2 * x / max(1, size) - 1).astype(dtype).reshape(shape)


def bins(lo, hi, out, limit, inclusive):
    span = max(hi - lo + (1 if inclusive else 0), 1)
    for p in range(out):
        start = min(max(int(math.floor(p * span / out)) + lo, 0), limit)
        end = min(max(int(math.ceil((p + 1) * span / out)) + lo, 0), limit)
        yield p, start, end


def roi_pool_ref(x, boxes, index, outsize, scale, mode, legacy=False):
    """Fast R-CNN RoI pooling, one bin at a time."""
    outh, outw = _pair(outsize)
    _, c, h, w = x.shape
    empty = 0.0 if (legacy or mode == 'mean') else -np.inf
    y = np.full((len(boxes), c, outh, outw), empty)
    for r, box in enumerate(boxes):
        b = [int(np.round(float(v) * scale)) for v in box]
        if legacy:
            (x1, y1, x2, y2) = b
        else:
            (y1, x1, y2, x2) = b
        for p, hs, he in bins(y1, y2, outh, h, legacy):
            for q, ws, we in bins(x1, x2, outw, w, legacy):
                if he > hs and we > ws:
                    patch = x[index[r], :, hs:he, ws:we].astype(np.float64).reshape(c, -1)
                    y[r, :, p, q] = patch.max(1) if mode == 'max' else patch.mean(1)
    return y.astype(x.dtype)


def _sample(img, yy, xx):
    """Bilinear read of ``img`` (C, H, W) at (yy, xx), or None when outside."""
    h, w = img.shape[1:]
    weights = []
    for p, limit in ((yy, h), (xx, w)):
        if p < -1 or p > limit:
            return None
        low = int(math.floor(p))
        if low >= limit:
            low = limit - 1
        p = min(max(p, 0.0), limit - 1.0)
        pairs = [(low, low + 1 - p), (low + 1, p - low)]
        weights.append([(i, wt) for i, wt in pairs if wt > 0 and 0 <= i < limit])
    v = np.zeros(img.shape[0])
    for i, wy in weights[0]:
        for j, wx in weights[1]:
            v += wy * wx * img[:, i, j]
    return v


def roi_align_ref(x, boxes, index, outsize, scale, ratio, mode):
    """RoIAlign, one sample point at a time."""
    outh, outw = _pair(outsize)
    ratio = _pair(ratio)
    c = x.shape[1]
    y = np.zeros((len(boxes), c, outh, outw))
    for r, box in enumerate(boxes):
        y1, x1, y2, x2 = [float(v) * scale for v in box]
        rh, rw = max(y2 - y1, 1.0), max(x2 - x1, 1.0)
        gh = ratio[0] or int(math.ceil(rh / outh))
        gw = ratio[1] or int(math.ceil(rw / outw))
        img = x[index[r]].astype(np.float64)
        for p in range(outh):
            for q in range(outw):
                vals = []
                for iy in range(gh):
                    for ix in range(gw):
                        v = _sample(img, y1 + p * rh / outh + (iy + .5) * rh / outh / gh,
                                    x1 + q * rw / outw + (ix + .5) * rw / outw / gw)
                        if v is not None:
                            vals.append(v)
                if mode == 'max':
                    y[r, :, p, q] = np.max(vals, 0) if vals else -np.inf
                else:
                    y[r, :, p, q] = np.sum(vals, 0) / (gh * gw) if vals else 0
    return y.astype(x.dtype)


BOXES = np.array([[1, 1, 7, 7], [2, 6, 12, 8], [1, 3, 11, 6], [3, 3, 4, 4],
                  [1.1, 2.2, 3.3, 4.4]])
INDEX = np.array([0, 2, 1, 0, 2], np.int32)


class _ROICase(PytestFunctionTestCase):
    params = [{'outsize': (5, 7), 'scale': 0.6}, {'outsize': 3, 'scale': 1.0},
              {'outsize': (np.int32(2), np.int32(4)), 'scale': np.float32(2)}]
    dtypes = (np.float32, np.float64)

    def generate_inputs(self):
        return shuffled((3, 2, 12, 8), self.dtype),

    def boxes(self, x, device):
        # The boxes follow x's dtype, which a gradient check may raise to float64.
        return device.send(BOXES.astype(x.dtype)), device.send(INDEX)


def finite(y):
    """Bins outside the image give -inf; zero them so that gradients can be checked."""
    if isinstance(y, chainlet.Variable):
        return F.where(y.xp.isinf(y.array), y.xp.zeros(y.shape, y.dtype), y)
    return np.where(np.isinf(y), 0, y).astype(y.dtype)


class TestROIMaxPooling2D(_ROICase):
    dtypes = (np.float16, np.float32, np.float64)

    def forward(self, inputs, device):
        return finite(F.roi_max_pooling_2d(inputs[0], *self.boxes(inputs[0], device),
                                           self.outsize, self.scale)),

    def forward_expected(self, inputs):
        return finite(roi_pool_ref(inputs[0], BOXES.astype(self.dtype), INDEX, self.outsize,
                                   float(self.scale), 'max')),


class TestROIAveragePooling2D(_ROICase):
    dtypes = (np.float16, np.float32, np.float64)

    def forward(self, inputs, device):
        return F.roi_average_pooling_2d(inputs[0], *self.boxes(inputs[0], device),
                                        self.outsize, self.scale),

    def forward_expected(self, inputs):
        return roi_pool_ref(inputs[0], BOXES.astype(self.dtype), INDEX, self.outsize,
                            float(self.scale), 'mean'),


class TestROIMaxAlign2D(_ROICase):
    params = [dict(p, ratio=ratio) for p in _ROICase.params
              for ratio in (None, 2, (None, 3), (np.int32(1), 2))]

    def forward(self, inputs, device):
        return finite(F.roi_max_align_2d(inputs[0], *self.boxes(inputs[0], device),
                                         self.outsize, self.scale, self.ratio)),

    def forward_expected(self, inputs):
        return finite(roi_align_ref(inputs[0], BOXES.astype(self.dtype), INDEX, self.outsize,
                                    float(self.scale), self.ratio, 'max')),


class TestROIAverageAlign2D(_ROICase):
    params = TestROIMaxAlign2D.params
    dtypes = (np.float16, np.float32, np.float64)

    def forward(self, inputs, device):
        return F.roi_average_align_2d(inputs[0], *self.boxes(inputs[0], device),
                                      self.outsize, self.scale, self.ratio),

    def forward_expected(self, inputs):
        return roi_align_ref(inputs[0], BOXES.astype(self.dtype), INDEX, self.outsize,
                             float(self.scale), self.ratio, 'mean'),


LEGACY = np.array([[0, 1, 1, 6, 6], [2, 6, 2, 7, 11], [1, 3, 1, 5, 10], [0, 3, 3, 3, 3]])


class TestROIPooling2D(PytestFunctionTestCase):
    params = [{'outh': 5, 'outw': 7, 'scale': 0.6}, {'outh': 2, 'outw': 3, 'scale': 1.0}]

    def generate_inputs(self):
        return shuffled((3, 2, 12, 8), self.dtype),

    def forward(self, inputs, device):
        rois = device.send(LEGACY.astype(inputs[0].dtype))
        return F.roi_pooling_2d(inputs[0], rois, self.outh, self.outw, self.scale),

    def forward_expected(self, inputs):
        return roi_pool_ref(inputs[0], LEGACY[:, 1:].astype(self.dtype), LEGACY[:, 0],
                            (self.outh, self.outw), self.scale, 'max', legacy=True),


# Box 0 misses the image; box 1 reaches it in its second row of bins only.
OUTSIDE = np.array([[20.0, 20.0, 30.0, 30.0], [-9.0, 0.0, 1.0, 4.0]], np.float32)


@pytest.mark.parametrize('func,empty', [
    (F.roi_max_pooling_2d, -np.inf), (F.roi_average_pooling_2d, 0.0),
    (F.roi_max_align_2d, -np.inf), (F.roi_average_align_2d, 0.0)])
def test_bins_outside_the_image(func, empty):
    x = chainlet.Variable(shuffled((1, 2, 4, 4), np.float32))
    y = func(x, OUTSIDE, np.zeros(2, np.int32), 2, 1.0)
    assert np.all(y.array[0] == empty)
    assert np.isfinite(y.array[1, :, 1]).all() and np.all(y.array[1, :, 0] == empty)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert np.isfinite(x.grad).all()
    assert x.grad[0, :, 0].any() and not x.grad[0, :, 2:].any()


@pytest.mark.parametrize('func', [F.roi_max_pooling_2d, F.roi_average_pooling_2d,
                                  F.roi_max_align_2d, F.roi_average_align_2d])
def test_non_finite_values_reach_only_their_bins(func):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    x[0, 0, 0, 0], x[0, 0, 3, 3] = np.inf, np.nan
    y = func(x, np.array([[0, 0, 4, 4]], np.float32), np.zeros(1, np.int32), 2, 1.0).array
    assert y[0, 0, 0, 0] == np.inf
    assert np.isfinite(y[0, 0, 0, 1]) and np.isfinite(y[0, 0, 1, 0])
    if 'average' in func.__name__:  # a mean with NaN is NaN
        assert np.isnan(y[0, 0, 1, 1])


def test_legacy_empty_bin_is_zero():
    x = shuffled((1, 1, 4, 4), np.float32)
    y = F.roi_pooling_2d(x, np.array([[0, 10, 10, 12, 12]], np.float32), 2, 2, 1.0)
    np.testing.assert_array_equal(y.array, np.zeros((1, 1, 2, 2)))


@pytest.mark.parametrize('func', [F.roi_max_pooling_2d, F.roi_average_pooling_2d,
                                  F.roi_max_align_2d, F.roi_average_align_2d])
def test_no_rois(func):
    x = chainlet.Variable(shuffled((2, 3, 4, 4), np.float64))
    y = func(x, np.zeros((0, 4)), np.zeros(0, np.int32), (2, 3), 1.0)
    assert y.shape == (0, 3, 2, 3)
    y.grad = np.zeros(y.shape)
    y.backward()
    np.testing.assert_array_equal(x.grad, np.zeros(x.shape))


def test_gradient_goes_to_the_maximum():
    x = chainlet.Variable(np.arange(16.0).reshape(1, 1, 4, 4))
    y = F.roi_max_pooling_2d(x, np.array([[0.0, 0, 4, 4]]), np.array([0], np.int32), 2, 1.0)
    y.grad = np.array([[[[1.0, 2.0], [3.0, 4.0]]]])
    y.backward()
    expected = np.zeros((4, 4))
    expected[1, 1], expected[1, 3], expected[3, 1], expected[3, 3] = 1, 2, 3, 4
    np.testing.assert_array_equal(x.grad[0, 0], expected)


def test_boxes_get_no_gradient():
    x = chainlet.Variable(shuffled((1, 1, 4, 4), np.float32))
    rois = chainlet.Variable(np.array([[0.0, 0, 4, 4]], np.float32))
    y = F.roi_average_align_2d(x, rois, np.array([0], np.int32), 2, 1.0)
    y.grad = np.ones(y.shape, np.float32)
    y.backward()
    assert rois.grad is None and x.grad is not None


X = np.zeros((2, 1, 4, 4), np.float32)
R = np.zeros((1, 4), np.float32)
IDX = np.zeros(1, np.int32)


@pytest.mark.parametrize('args,kwargs,err,match', [
    ((X, R, IDX, 0, 1.0), {}, TypeError, r'roi_max_pooling_2d: argument outsize\[0\]: expected '
     'a positive int'),
    ((X, R, IDX, (2, 2.5), 1.0), {}, TypeError, r'argument outsize\[1\]'),
    ((X, R, IDX, (2, 2, 2), 1.0), {}, TypeError, 'argument outsize: expected'),
    ((X, R, IDX, 2, -1.0), {}, TypeError, 'argument spatial_scale: expected a positive number'),
    ((X, R, IDX, 2, 'a'), {}, TypeError, 'argument spatial_scale'),
    ((X, R.astype(np.float64), IDX, 2, 1.0), {}, type_check.InvalidType, 'argument rois'),
    ((X, np.zeros((1, 5), np.float32), IDX, 2, 1.0), {}, type_check.InvalidType,
     r'argument rois: expected shape \(R, 4\)'),
    ((X, R, IDX.astype(np.float32), 2, 1.0), {}, type_check.InvalidType,
     'argument roi_indices: expected an integer dtype'),
    ((X, R, np.zeros(2, np.int32), 2, 1.0), {}, type_check.InvalidType,
     r'argument roi_indices: expected shape \(1,\)'),
    ((X, R, np.array([2], np.int32), 2, 1.0), {}, ValueError,
     r'argument roi_indices: expected values in \[0, 2\)'),
    ((X.astype(np.int32), R, IDX, 2, 1.0), {}, type_check.InvalidType, 'argument x'),
    ((X[0], R, IDX, 2, 1.0), {}, type_check.InvalidType, 'argument x: expected ndim 4'),
])
def test_errors(args, kwargs, err, match):
    with pytest.raises(err, match=match):
        F.roi_max_pooling_2d(*args, **kwargs)


@pytest.mark.parametrize('ratio', [0, (1, 0), 1.5, (1, 2, 3)])
def test_bad_sampling_ratio(ratio):
    for func in (F.roi_max_align_2d, F.roi_average_align_2d):
        with pytest.raises(TypeError, match=f'{func.__name__}: argument sampling_ratio'):
            func(X, R, IDX, 2, 1.0, ratio)


def test_legacy_errors():
    with pytest.raises(type_check.InvalidType, match=r'argument rois: expected shape \(R, 5\)'):
        F.roi_pooling_2d(X, R, 2, 2, 1.0)
    with pytest.raises(TypeError, match=r'roi_pooling_2d: argument outsize\[0\]'):
        F.roi_pooling_2d(X, np.zeros((1, 5), np.float32), 0, 2, 1.0)


def _nan_image():
    x = np.ones((1, 2, 4, 4), np.float32)
    x[0, 0, 1, 1] = np.nan  # channel 0 only
    return x


@pytest.mark.parametrize('call', [
    lambda x: F.roi_max_pooling_2d(x, np.array([[0, 0, 2, 2]], np.float32),
                                   np.array([0], np.int32), 1, 1.0),
    lambda x: F.roi_pooling_2d(x, np.array([[0, 0, 0, 1, 1]], np.float32), 1, 1, 1.0),
    lambda x: F.roi_max_align_2d(x, np.array([[0, 0, 2, 2]], np.float32),
                                 np.array([0], np.int32), 1, 1.0, sampling_ratio=2),
    lambda x: F.roi_average_pooling_2d(x, np.array([[0, 0, 2, 2]], np.float32),
                                       np.array([0], np.int32), 1, 1.0),
    lambda x: F.roi_average_align_2d(x, np.array([[0, 0, 2, 2]], np.float32),
                                     np.array([0], np.int32), 1, 1.0, sampling_ratio=2),
    lambda x: F.max_pooling_2d(x, 2),
])
def test_nan_propagates_like_max_pooling(call):
    x = chainlet.Variable(_nan_image())
    y = call(x)
    assert np.isnan(y.array[0, 0, 0, 0])     # the bin holding the NaN
    assert y.array[0, 1, 0, 0] == 1.0        # the other channel is untouched
    y.grad = np.ones_like(y.array)
    y.backward()
    assert np.isfinite(x.grad).all()


def test_max_pooling_gradient_goes_to_the_nan():
    x = chainlet.Variable(_nan_image())
    y = F.roi_max_pooling_2d(x, np.array([[0, 0, 2, 2]], np.float32),
                             np.array([0], np.int32), 1, 1.0)
    y.grad = np.ones_like(y.array)
    y.backward()
    assert x.grad[0, 0, 1, 1] == 1.0 and x.grad[0, 0].sum() == 1.0
