"""resize_images, space2depth, depth2space, copy."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import type_check
from chainlet.testing import PytestFunctionTestCase


def _coords(out_size, in_size, mode, align_corners):
    if mode == 'nearest':
        src = [min(np.floor(i * in_size / out_size), in_size - 1) for i in range(out_size)]
    elif align_corners:
        src = [i * (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
               for i in range(out_size)]
    else:
        src = [max((i + 0.5) * in_size / out_size - 0.5, 0.0) for i in range(out_size)]
    return [(int(np.floor(s)), s - np.floor(s)) for s in src]


def _resize_reference(x, out_hw, mode, align_corners):
    n, c, h, w = x.shape
    y = np.zeros((n, c) + tuple(out_hw))
    xs = x.astype(np.float64)
    for i, (v0, vw) in enumerate(_coords(out_hw[0], h, mode, align_corners)):
        v1 = min(v0 + 1, h - 1)
        for j, (u0, uw) in enumerate(_coords(out_hw[1], w, mode, align_corners)):
            u1 = min(u0 + 1, w - 1)
            y[:, :, i, j] = ((1 - vw) * (1 - uw) * xs[:, :, v0, u0]
                             + (1 - vw) * uw * xs[:, :, v0, u1]
                             + vw * (1 - uw) * xs[:, :, v1, u0] + vw * uw * xs[:, :, v1, u1])
    return y.astype(x.dtype)


class TestResizeImages(PytestFunctionTestCase):
    params = [{'shape': (2, 1, 3, 4), 'out': (5, 2), 'mode': 'bilinear', 'ac': True},
              {'shape': (1, 2, 4, 3), 'out': (3, 7), 'mode': 'bilinear', 'ac': False},
              {'shape': (1, 1, 3, 3), 'out': (1, 1), 'mode': 'bilinear', 'ac': True},
              {'shape': (1, 2, 3, 4), 'out': (5, 2), 'mode': 'nearest', 'ac': True},
              {'shape': (0, 2, 2, 2), 'out': (3, 3), 'mode': 'bilinear', 'ac': True}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.resize_images(inputs[0], self.out, mode=self.mode, align_corners=self.ac),

    def forward_expected(self, inputs):
        return _resize_reference(inputs[0], self.out, self.mode, self.ac),


def test_resize_images_identity_and_corners():
    x = np.random.uniform(-1, 1, (2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(F.resize_images(x, (4, 5)).array, x, rtol=1e-6)
    np.testing.assert_allclose(F.resize_images(x, (4, 5), mode='nearest').array, x)
    y = F.resize_images(x, (7, 9)).array
    for i, j in [(0, 0), (0, -1), (-1, 0), (-1, -1)]:
        np.testing.assert_allclose(y[:, :, i, j], x[:, :, i, j], rtol=1e-6)


def test_resize_images_larger_image_is_vectorised():
    x = np.random.uniform(-1, 1, (2, 3, 32, 48)).astype(np.float32)
    y = F.resize_images(x, (64, 20), align_corners=False)
    np.testing.assert_allclose(y.array, _resize_reference(x, (64, 20), 'bilinear', False),
                               atol=1e-5)


def test_resize_images_errors():
    x = np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(type_check.InvalidType, match='resize_images: argument x: expected ndim '
                                                     '4'):
        F.resize_images(np.zeros((2, 2), np.float32), (3, 3))
    with pytest.raises(type_check.InvalidType, match='resize_images: argument x: expected a '
                                                     'floating-point dtype'):
        F.resize_images(np.zeros((1, 1, 2, 2), np.int32), (3, 3))
    with pytest.raises(ValueError, match='resize_images: argument output_shape: expected '
                                         'positive sizes'):
        F.resize_images(x, (0, 3))
    with pytest.raises(TypeError, match='resize_images: argument output_shape: expected a pair'):
        F.resize_images(x, 3)
    with pytest.raises(ValueError, match="resize_images: argument mode: expected 'bilinear' or "
                                         "'nearest', got 'cubic'"):
        F.resize_images(x, (3, 3), mode='cubic')
    with pytest.raises(ValueError, match='resize_images: argument x: expected a non-empty image'):
        F.resize_images(np.zeros((1, 1, 0, 2), np.float32), (3, 3))


def _space2depth_reference(x, r):
    n, c, h, w = x.shape
    y = np.empty((n, c * r * r, h // r, w // r), x.dtype)
    for i in range(r):
        for j in range(r):
            y[:, (i * r + j) * c:(i * r + j + 1) * c] = x[:, :, i::r, j::r]
    return y


class TestSpace2Depth(PytestFunctionTestCase):
    params = [{'shape': (2, 3, 4, 6), 'r': 2}, {'shape': (1, 1, 3, 3), 'r': 3},
              {'shape': (1, 2, 2, 2), 'r': 1}, {'shape': (0, 1, 2, 2), 'r': 2}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.space2depth(inputs[0], self.r),

    def forward_expected(self, inputs):
        return _space2depth_reference(inputs[0], self.r),


class TestDepth2Space(PytestFunctionTestCase):
    params = [{'shape': (2, 12, 2, 3), 'r': 2}, {'shape': (1, 9, 1, 2), 'r': 3},
              {'shape': (0, 4, 1, 1), 'r': 2}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.depth2space(inputs[0], self.r),

    def forward_expected(self, inputs):
        x = inputs[0]
        n, c, h, w = x.shape
        r = self.r
        y = np.empty((n, c // (r * r), h * r, w * r), x.dtype)
        oc = c // (r * r)
        for i in range(r):
            for j in range(r):
                y[:, :, i::r, j::r] = x[:, (i * r + j) * oc:(i * r + j + 1) * oc]
        return y,


def test_space2depth_matches_chainer_layout_and_round_trips():
    x = np.arange(24, dtype=np.float32).reshape(1, 1, 4, 6)
    y = F.space2depth(x, 2).array
    np.testing.assert_array_equal(y[0, :, 0, 0], [0, 1, 6, 7])
    np.testing.assert_array_equal(y[0, 0], [[0, 2, 4], [12, 14, 16]])
    np.testing.assert_array_equal(F.depth2space(y, 2).array, x)


def test_space_depth_errors():
    with pytest.raises(ValueError, match=r'space2depth: argument X: expected height and width '
                                         r'divisible by r=2, got shape \(1, 1, 3, 4\)'):
        F.space2depth(np.zeros((1, 1, 3, 4), np.float32), 2)
    with pytest.raises(ValueError, match='depth2space: argument X: expected a channel count '
                                         'divisible by r\\*r=4'):
        F.depth2space(np.zeros((1, 2, 3, 4), np.float32), 2)
    with pytest.raises(ValueError, match='space2depth: argument r: expected a positive int'):
        F.space2depth(np.zeros((1, 1, 2, 2), np.float32), 0)
    with pytest.raises(TypeError, match='depth2space: argument r: expected an int'):
        F.depth2space(np.zeros((1, 4, 2, 2), np.float32), 2.0)
    with pytest.raises(type_check.InvalidType, match='space2depth: argument X: expected ndim 4'):
        F.space2depth(np.zeros((2, 2), np.float32), 2)


class TestCopy(PytestFunctionTestCase):
    params = [{'shape': (2, 3), 'dst': -1}, {'shape': (), 'dst': '@numpy'},
              {'shape': (0, 2), 'dst': 'cpu'}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        return F.copy(inputs[0], self.dst),

    def forward_expected(self, inputs):
        return inputs[0].copy(),


def test_copy_makes_a_new_array_and_rejects_bad_devices():
    x = np.zeros(3)
    y = F.copy(x, -1)
    assert y.array is not x and not np.shares_memory(y.array, x)
    with pytest.raises(ValueError, match='copy: argument dst: device: expected'):
        F.copy(x, 'tpu')
    with pytest.raises(TypeError, match='copy: argument dst'):
        F.copy(x, True)


@pytest.mark.gpu
def test_copy_between_host_and_gpu():
    from chainlet import backend
    if not backend.gpu_available():
        pytest.skip('no GPU')
    import cupy
    x = chainlet.Variable(np.arange(3.0))
    y = F.copy(x, 0)
    assert isinstance(y.array, cupy.ndarray)
    z = F.copy(y * 2.0, '@numpy')
    assert isinstance(z.array, np.ndarray)
    z.sum().backward()
    assert isinstance(x.grad, np.ndarray)
    np.testing.assert_array_equal(x.grad, [2.0, 2.0, 2.0])
