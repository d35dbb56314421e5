import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import gradient_check
from chainlet.testing import PytestFunctionTestCase


class TestLinear(PytestFunctionTestCase):
    params = [
        {'x_shape': (3, 4), 'out': 2, 'bias': True, 'n_batch_axes': 1},
        {'x_shape': (3, 4), 'out': 2, 'bias': False, 'n_batch_axes': 1},
        # Trailing axes are flattened into the feature axis.
        {'x_shape': (2, 3, 2), 'out': 5, 'bias': True, 'n_batch_axes': 1},
        {'x_shape': (2, 3, 4), 'out': 5, 'bias': True, 'n_batch_axes': 2},
        {'x_shape': (2, 1, 3, 2), 'out': 3, 'bias': False, 'n_batch_axes': 2},
        {'x_shape': (0, 4), 'out': 3, 'bias': True, 'n_batch_axes': 1},
        {'x_shape': (3, 4), 'out': 0, 'bias': True, 'n_batch_axes': 1},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=2e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def _in_size(self):
        return int(np.prod(self.x_shape[self.n_batch_axes:]))

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        W = np.random.uniform(-1, 1, (self.out, self._in_size())).astype(self.dtype)
        if not self.bias:
            return x, W
        return x, W, np.random.uniform(-1, 1, self.out).astype(self.dtype)

    def forward(self, inputs, device):
        return F.linear(*inputs, n_batch_axes=self.n_batch_axes),

    def forward_expected(self, inputs):
        x, W = inputs[:2]
        batch = self.x_shape[:self.n_batch_axes]
        y = x.astype(np.float64).reshape(int(np.prod(batch)), -1 if x.size else
                                         self._in_size()) @ W.T.astype(np.float64)
        if self.bias:
            y = y + inputs[2]
        return y.reshape(batch + (self.out,)).astype(self.dtype),


def test_matches_chainer_flattening():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    W = np.ones((1, 12), np.float32)
    np.testing.assert_array_equal(F.linear(x, W).array, [[66], [210]])


def test_gradients():
    x = chainlet.Variable(np.array([[1.0, 2.0]]))
    W = chainlet.Variable(np.array([[3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]))
    b = chainlet.Variable(np.zeros(3))
    y = F.linear(x, W, b)
    y.grad = np.array([[1.0, 0.0, -1.0]])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[-4.0, -4.0]])
    np.testing.assert_array_equal(W.grad, [[1, 2], [0, 0], [-1, -2]])
    np.testing.assert_array_equal(b.grad, [1, 0, -1])


def test_output_is_float32_for_float32_inputs():
    x = np.ones((2, 3), np.float32)
    W = np.ones((4, 3), np.float32)
    assert F.linear(x, W, np.ones(4, np.float32)).dtype == np.float32


@pytest.mark.parametrize('x_dtype,W_dtype', [(np.float16, np.float64),
                                             (np.float64, np.float32)])
def test_mixed_precision_keeps_each_dtype(x_dtype, W_dtype):
    # As in Chainer, x and W may differ in precision: y and gx take the dtype of x, gW that
    # of W, also in double backprop.
    rng = np.random.RandomState(0)
    x = rng.uniform(-1, 1, (2, 3)).astype(x_dtype)
    W = rng.uniform(-1, 1, (4, 3)).astype(W_dtype)
    b = rng.uniform(-1, 1, 4).astype(x_dtype)
    y = F.linear(x, W, b)
    assert y.dtype == x_dtype
    np.testing.assert_allclose(y.array, x.astype(np.float64) @ W.T.astype(np.float64) + b,
                               rtol=1e-2, atol=1e-2)
    gy = rng.uniform(-1, 1, (2, 4)).astype(x_dtype)
    xv, Wv = chainlet.Variable(x), chainlet.Variable(W)
    gx, gW = chainlet.grad([F.linear(xv, Wv, b)], [xv, Wv], [gy], enable_double_backprop=True)
    assert gx.dtype == x_dtype and gW.dtype == W_dtype
    ggx, = chainlet.grad([F.sum(gW * gW)], [xv])
    assert ggx.dtype == x_dtype
    gradient_check.check_backward(F.linear, (x, W, b), gy, dtype=np.float64, atol=1e-2,
                                  rtol=1e-2)
    gradient_check.check_double_backward(F.linear, (x, W, b), gy, (x, W, b), dtype=np.float64,
                                         atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize('args,kw,err,match', [
    ((np.ones((2, 3), np.float32), np.ones((4, 2), np.float32)), {}, TypeError,
     r'linear: argument W: expected shape \(\*, 3\) to match x of shape \(2, 3\), '
     r'got \(4, 2\)'),
    ((np.ones((2, 3), np.float32), np.ones(3, np.float32)), {}, TypeError,
     r'linear: argument W: expected ndim 2, got shape \(3,\)'),
    ((np.ones((2, 3), np.int32), np.ones((4, 3), np.float32)), {}, TypeError,
     'linear: argument x: expected a floating-point dtype, got int32'),
    ((np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), np.ones(4, np.float64)), {},
     TypeError, 'linear: argument b: expected dtype float32'),
    ((np.ones((2, 3), np.float32), np.ones((4, 3), np.float32), np.ones(3, np.float32)), {},
     TypeError, r'linear: argument b: expected shape \(4,\)'),
    ((np.ones(3, np.float32), np.ones((4, 3), np.float32)), {}, TypeError,
     r'linear: argument x: expected ndim > n_batch_axes = 1, got shape \(3,\)'),
    ((np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)), {'n_batch_axes': 0},
     ValueError, 'linear: argument n_batch_axes: expected a value >= 1, got 0'),
    ((np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)), {'n_batch_axes': 1.0},
     TypeError, 'linear: argument n_batch_axes: expected an int'),
    # Multi-axis x: the message shows the shape given, not the internally flattened one.
    ((np.ones((2, 3, 2, 2), np.float32), np.ones((4, 10), np.float32)), {}, TypeError,
     r'linear: argument W: expected shape \(\*, 12\) to match x of shape \(2, 3, 2, 2\) '
     r'with n_batch_axes=1, got \(4, 10\)'),
    ((np.ones((2, 3, 5), np.float32), np.ones((4, 15), np.float32)), {'n_batch_axes': 2},
     TypeError, r'expected shape \(\*, 5\) to match x of shape \(2, 3, 5\) with '
     r'n_batch_axes=2, got \(4, 15\)'),
    (([[1.0, 2.0]], np.ones((4, 2), np.float32)), {}, TypeError,
     'linear: argument x: expected a Variable or an ndarray, got list'),
    # Issue 13, item 7: float64 x into float32 W and b (a Linear link) blamed the bias.
    ((np.ones((2, 3), np.float64), np.ones((4, 3), np.float32), np.ones(4, np.float32)), {},
     TypeError, r'linear: argument x: expected dtype float32 \(the dtype of W and b\), '
     r'got float64'),
])
def test_errors(args, kw, err, match):
    with pytest.raises(err, match=match):
        F.linear(*args, **kw)


def test_linear_link_blames_a_float64_input():
    import chainlet.links as L
    with pytest.raises(TypeError, match='linear: argument x: expected dtype float32'):
        L.Linear(3, 2)(np.ones((1, 3)))


@pytest.mark.parametrize('x_dtype, w_dtype', [(np.float32, np.float16), (np.float16, np.float32)])
def test_mixed_x_w_dtypes_as_convolution_2d(x_dtype, w_dtype):
    # Chainer's rule for both linear and convolution_2d: x and W need only be floats (the
    # output and gx take x's dtype, gW W's); a bias must have x's dtype. Both agree here.
    for f, xs, ws in [(F.linear, (1, 3), (2, 3)), (F.convolution_2d, (1, 1, 3, 3), (1, 1, 2, 2))]:
        x = chainlet.Variable(np.ones(xs, x_dtype))
        W = chainlet.Variable(np.ones(ws, w_dtype))
        y = f(x, W)
        y.grad = np.ones_like(y.array)
        y.backward()
        assert (y.dtype, x.grad.dtype, W.grad.dtype) == (x_dtype, x_dtype, w_dtype)
        with pytest.raises(TypeError, match=f'{f.__name__}: argument x: expected dtype '
                           f'{np.dtype(w_dtype)} \\(the dtype of W and b\\)'):
            f(x, W, np.ones(ws[0], w_dtype))
