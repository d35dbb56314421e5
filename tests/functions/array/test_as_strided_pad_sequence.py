"""as_strided and pad_sequence."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.functions.array.as_strided import _stride_array
from chainlet.testing import PytestFunctionTestCase


# -- as_strided --

@pytest.mark.parametrize('dtype', [np.float32, np.int16])
def test_stride_array_views_the_buffer_in_steps(dtype):
    x = np.arange(8, dtype=dtype)
    np.testing.assert_array_equal(_stride_array(x, (4,), (-1,), 3), [3, 2, 1, 0])
    np.testing.assert_array_equal(_stride_array(x, (3, 3), (-1, 2), 3),
                                  [[3, 5, 7], [2, 4, 6], [1, 3, 5]])
    # The view of x is ignored: the offset counts from the start of the buffer.
    rows = np.arange(12, dtype=dtype).reshape(3, 4)[::-1]
    np.testing.assert_array_equal(_stride_array(rows, (12,), (1,), 0), np.arange(12))
    y = _stride_array(x, (2, 4), (0, 1), 4)
    assert np.shares_memory(y, x)
    np.testing.assert_array_equal(y, [[4, 5, 6, 7]] * 2)


def test_stride_array_rejects_views_outside_the_buffer():
    x = np.arange(8.0)
    with pytest.raises(ValueError, match='starts 2 elements before the buffer'):
        _stride_array(x, (3, 3), (-1, 2), 0)
    with pytest.raises(ValueError, match='ends past the buffer of 8 elements'):
        _stride_array(x, (3,), (3,), 2)
    with pytest.raises(TypeError, match='expected a NumPy or CuPy array, got list'):
        _stride_array([1.0], (1,), (1,), 0)


def _as_strided_grad(x, shape, strides, offset, gy):
    v = chainlet.Variable(x)
    y = F.as_strided(v, shape, strides, offset)
    gx, = chainlet.grad([y], [v], [gy])
    return y, gx


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_as_strided_forward_and_layout_agnostic_gradient(dtype):
    x = np.arange(4, dtype=dtype)
    y, gx = _as_strided_grad(x, (3, 2), (1, 1), 0, np.ones((3, 2), dtype))
    np.testing.assert_array_equal(y.array, [[0, 1], [1, 2], [2, 3]])
    assert y.dtype == dtype and gx.dtype == dtype
    # Output elements sharing memory add their gradients.
    np.testing.assert_array_equal(gx.array, [1, 2, 2, 1])
    # A broadcast (zero stride) sums over the repeated axis.
    x = np.arange(12, dtype=dtype).reshape(3, 4)
    _, gx = _as_strided_grad(x, (2, 3, 4), (0, 4, 1), 0, np.ones((2, 3, 4), dtype))
    np.testing.assert_array_equal(gx.array, np.full((3, 4), 2))
    # An input that overlaps itself splits the gradient of a shared element evenly.
    x = _stride_array(np.arange(8, dtype=dtype), (3, 3), (-1, 2), 3)
    _, gx = _as_strided_grad(x, (3, 3), (1, 2), 0, np.ones((3, 3), dtype))
    np.testing.assert_allclose(gx.array, [[0.5, 0.5, 0], [2, 2, 1], [1, 0.5, 0.5]])


def test_as_strided_default_offset_keeps_that_of_x():
    base = np.arange(10.0)
    y = F.as_strided(base[3:], (2, 2), (1, 1))
    np.testing.assert_array_equal(y.array, [[3, 4], [4, 5]])


def test_as_strided_backward_and_double_backward_match_numerical():
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, 6)

    def f(x):
        return F.as_strided(x, (2, 3), (2, 1), 0)

    gy = rng.uniform(-1, 1, (2, 3))
    gradient_check.check_backward(f, x, gy)
    gradient_check.check_double_backward(f, x, gy, rng.uniform(-1, 1, 6))


def test_as_strided_of_an_empty_input_has_a_zero_gradient():
    x = chainlet.Variable(np.zeros((0, 3), np.float32))
    y = F.as_strided(x, (0,), (1,), 0)
    gx, = chainlet.grad([y], [x], [np.zeros(0, np.float32)])
    assert gx.shape == (0, 3) and gx.dtype == np.float32


def test_as_strided_errors():
    x = np.arange(4.0)
    with pytest.raises(ValueError, match=r'as_strided: argument strides: expected 2 strides'):
        F.as_strided(x, (2, 2), (1,), 0)
    with pytest.raises(ValueError, match=r'as_strided: argument shape: expected non-negative'):
        F.as_strided(x, (-1,), (1,), 0)
    with pytest.raises(TypeError, match='as_strided: argument shape: expected an int'):
        F.as_strided(x, (1.5,), (1,), 0)
    xi = chainlet.Variable(np.arange(4, dtype=np.int32))
    y = F.as_strided(xi, (4,), (-1,), 3)
    with pytest.raises(TypeError, match='as_strided: gradients are defined for float dtypes'):
        y.creator.backward((0,), (chainlet.Variable(np.ones(4, np.int32)),))


# -- pad_sequence --

class TestPadSequence(PytestFunctionTestCase):
    params = [{'lengths': (2, 1, 5, 3), 'length': None, 'shape': (3, 2), 'pad': 0.5},
              {'lengths': (2, 1, 5, 3), 'length': 6, 'shape': (), 'pad': -1},
              {'lengths': (2,), 'length': None, 'shape': (3,), 'pad': 0},
              {'lengths': (0, 2), 'length': 4, 'shape': (), 'pad': 3},
              {'lengths': (0,), 'length': None, 'shape': (2,), 'pad': 0}]

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (n,) + self.shape).astype(self.dtype)
                     for n in self.lengths)

    def forward(self, inputs, device):
        return F.pad_sequence(inputs, self.length, self.pad),

    def forward_expected(self, inputs):
        length = max(self.lengths) if self.length is None else self.length
        y = np.full((len(inputs), length) + self.shape, self.pad, self.dtype)
        for i, x in enumerate(inputs):
            y[i, :len(x)] = x
        return y,


@pytest.mark.parametrize('dtype', [np.bool_, np.int8, np.uint8, np.int32, np.uint32])
def test_pad_sequence_casts_the_padding_to_the_dtype(dtype):
    xs = [np.ones(2, dtype), np.ones(1, dtype)]
    y = F.pad_sequence(xs, padding=-1)
    assert y.dtype == dtype
    np.testing.assert_array_equal(y.array, np.array([[1, 1], [1, -1]]).astype(dtype))


def test_pad_sequence_nan_padding_and_gradient_drops_the_padding():
    xs = [chainlet.Variable(np.array([1.0, 2.0])), chainlet.Variable(np.array([3.0]))]
    y = F.pad_sequence(xs, length=3, padding=float('nan'))
    np.testing.assert_array_equal(np.isnan(y.array), [[0, 0, 1], [0, 1, 1]])
    gx = chainlet.grad([y], xs, [np.arange(6.0).reshape(2, 3)])
    np.testing.assert_array_equal(gx[0].array, [0, 1])
    np.testing.assert_array_equal(gx[1].array, [3])


@pytest.mark.parametrize('xs,kw,err,match', [
    ([np.zeros(3), np.zeros(2)], {'length': 2}, TypeError,
     r'pad_sequence: argument xs\[0\]: expected at most length=2 steps, got \(3,\)'),
    ([np.zeros((2, 3)), np.zeros((2, 4))], {}, TypeError,
     r'pad_sequence: argument xs\[1\]: expected shape \(\*, 3\)'),
    ([np.zeros(2), np.zeros(2, np.float32)], {}, TypeError,
     r'pad_sequence: argument xs\[1\]: expected dtype float64'),
    ([np.zeros(())], {}, TypeError, r'pad_sequence: argument xs\[0\]: expected ndim >= 1'),
    ([], {}, ValueError, 'pad_sequence: argument xs: expected at least one array'),
    ([np.zeros(2)], {'length': -1}, ValueError, 'pad_sequence: argument length: expected a '
     'non-negative int'),
    ([np.zeros(2)], {'length': 2.0}, TypeError, 'pad_sequence: argument length: expected an int'),
])
def test_pad_sequence_errors(xs, kw, err, match):
    with pytest.raises(err, match=match):
        F.pad_sequence(xs, **kw)
