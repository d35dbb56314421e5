"""spatial_transformer_grid and spatial_transformer_sampler."""
import numpy as np
import pytest

import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _sample_reference(x, grid):
    """Bilinear sampling with zero padding, one point at a time (float64)."""
    n, c, h, w = x.shape
    _, _, oh, ow = grid.shape
    y = np.zeros((n, c, oh, ow))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                u = (float(grid[b, 0, i, j]) + 1) * (w - 1) / 2
                v = (float(grid[b, 1, i, j]) + 1) * (h - 1) / 2
                u0, v0 = int(np.floor(u)), int(np.floor(v))
                for yy, wy in ((v0, v0 + 1 - v), (v0 + 1, v - v0)):
                    for xx, wx in ((u0, u0 + 1 - u), (u0 + 1, u - u0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            y[b, :, i, j] += wy * wx * x[b, :, yy, xx]
    return y.astype(x.dtype)


class TestSpatialTransformerSampler(PytestFunctionTestCase):
    # Points inside and up to half a pixel outside the image (so no clipping kink is hit).
    params = [{'in_shape': (2, 2, 4, 4), 'out': (3, 3)}, {'in_shape': (1, 3, 3, 5), 'out': (2, 4)}]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 5e-3, 'rtol': 5e-3}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 1e-3}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2, 'eps': 1e-3}

    def generate_inputs(self):
        n, c, h, w = self.in_shape
        x = np.random.uniform(-1, 1, self.in_shape).astype(self.dtype)
        grid = np.random.uniform(-1.2, 1.2, (n, 2) + self.out)
        # Keep every point away from pixel boundaries, where the gradient jumps.
        for axis, size in ((0, w), (1, h)):
            pos = (grid[:, axis] + 1) * (size - 1) / 2
            pos = np.floor(pos) + np.clip(pos - np.floor(pos), 0.1, 0.9)
            grid[:, axis] = pos * 2 / (size - 1) - 1
        return x, grid.astype(self.dtype)

    def forward(self, inputs, device):
        return F.spatial_transformer_sampler(*inputs),

    def forward_expected(self, inputs):
        return _sample_reference(*inputs),


def test_sampler_identity_rotation_and_padding():
    rng = np.random.RandomState(0)
    x = rng.uniform(size=(2, 2, 4, 4)).astype(np.float32)
    mesh = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(-1, 1, 4))
    grid = np.repeat(np.stack(mesh)[None], 2, axis=0).astype(np.float32)
    np.testing.assert_allclose(F.spatial_transformer_sampler(x, grid).array, x, atol=1e-6)
    rotated = np.repeat(np.stack([np.rot90(m) for m in mesh])[None], 2, axis=0)
    np.testing.assert_allclose(F.spatial_transformer_sampler(x, rotated.astype(np.float32)).array,
                               np.rot90(x, axes=(2, 3)), atol=1e-6)
    # Half a pixel outside a corner blends a quarter of the corner pixel with zeros; far
    # outside reads zero.
    corner = np.array([[[[-1 - 1 / 3, 5.0]], [[-1 - 1 / 3, 5.0]]]], np.float32)
    y = F.spatial_transformer_sampler(x[:1], corner).array
    np.testing.assert_allclose(y[0, :, 0, 0], x[0, :, 0, 0] / 4, rtol=1e-5)
    np.testing.assert_array_equal(y[0, :, 0, 1], 0)


def test_sampler_mixed_dtypes_and_errors():
    x = np.ones((1, 1, 2, 2), np.float32)
    grid = np.zeros((1, 2, 1, 1), np.float64)
    y = F.spatial_transformer_sampler(x, grid)
    assert y.dtype == np.float32 and y.array[0, 0, 0, 0] == 1
    with pytest.raises(TypeError, match=r'spatial_transformer_sampler: argument grid: expected '
                                        r'shape \(1, 2, \*, \*\)'):
        F.spatial_transformer_sampler(x, np.zeros((1, 3, 1, 1), np.float32))
    with pytest.raises(TypeError, match='spatial_transformer_sampler: argument x: expected a '
                                        'floating-point dtype'):
        F.spatial_transformer_sampler(x.astype(np.int32), grid)


class TestSpatialTransformerGrid(PytestFunctionTestCase):
    params = [{'n': 2, 'out': (3, 4)}, {'n': 1, 'out': (1, 2)}, {'n': 0, 'out': (2, 2)}]

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (self.n, 2, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return F.spatial_transformer_grid(inputs[0], self.out),

    def forward_expected(self, inputs):
        theta, = inputs
        h, w = self.out
        ys, xs = np.meshgrid(np.linspace(-1, 1, h), np.linspace(-1, 1, w), indexing='ij')
        coords = np.stack([xs.ravel(), ys.ravel(), np.ones(h * w)])
        grid = theta.astype(np.float64) @ coords
        return grid.reshape(len(theta), 2, h, w).astype(theta.dtype),


def test_grid_errors():
    with pytest.raises(TypeError, match=r'spatial_transformer_grid: argument theta: expected '
                                        r'shape \(\*, 2, 3\)'):
        F.spatial_transformer_grid(np.zeros((1, 3, 3), np.float32), (2, 2))
    with pytest.raises(TypeError, match='spatial_transformer_grid: argument output_shape'):
        F.spatial_transformer_grid(np.zeros((1, 2, 3), np.float32), (2.0, 2))
