import warnings

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase
from chainlet.type_check import InvalidType


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _lstm_ref(c_prev, x):
    batch, units = x.shape[0], c_prev.shape[1]
    r = x.reshape((batch, units, 4) + x.shape[2:])
    a, i, f, o = (r[:, :, k] for k in range(4))
    c = c_prev.copy()
    c[:batch] = np.tanh(a) * _sigmoid(i) + _sigmoid(f) * c_prev[:batch]
    h = _sigmoid(o) * np.tanh(c[:batch])
    return c.astype(c_prev.dtype), h.astype(c_prev.dtype)


class TestLSTM(PytestFunctionTestCase):
    params = [
        {'c_shape': (3, 2), 'x_shape': (3, 8)},
        {'c_shape': (4, 2), 'x_shape': (2, 8)},      # shorter batch: rows 2..3 pass through
        {'c_shape': (2, 1, 3), 'x_shape': (2, 4, 3)},  # trailing axes
        {'c_shape': (3, 2), 'x_shape': (0, 8)},      # empty step
        {'c_shape': (0, 2), 'x_shape': (0, 8)},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_backward_options.update(atol=1e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def generate_inputs(self):
        c = np.random.uniform(-1, 1, self.c_shape).astype(self.dtype)
        x = np.random.uniform(-1, 1, self.x_shape).astype(self.dtype)
        return c, x

    def forward(self, inputs, device):
        return F.lstm(*inputs)

    def forward_expected(self, inputs):
        ref = _lstm_ref(*(a.astype(np.float64) for a in inputs))
        return tuple(y.astype(self.dtype) for y in ref)


def _slstm_ref(c1, c2, x1, x2):
    def gates(x):
        r = x.reshape((x.shape[0], x.shape[1] // 4, 4) + x.shape[2:])
        return [r[:, :, k] for k in range(4)]
    a1, i1, f1, o1 = gates(x1)
    a2, i2, f2, o2 = gates(x2)
    c = (np.tanh(a1) * _sigmoid(i1) + np.tanh(a2) * _sigmoid(i2)
         + _sigmoid(f1) * c1 + _sigmoid(f2) * c2)
    return c, _sigmoid(o1 + o2) * np.tanh(c)


class TestSLSTM(PytestFunctionTestCase):
    params = [
        {'c_shape': (3, 2)},
        {'c_shape': (2, 1, 2)},
        {'c_shape': (0, 2)},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_backward_options.update(atol=1e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def generate_inputs(self):
        x_shape = (self.c_shape[0], 4 * self.c_shape[1]) + self.c_shape[2:]
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype)
                     for s in (self.c_shape, self.c_shape, x_shape, x_shape))

    def forward(self, inputs, device):
        return F.slstm(*inputs)

    def forward_expected(self, inputs):
        return tuple(y.astype(self.dtype) for y in _slstm_ref(*(a.astype(np.float64)
                                                                for a in inputs)))


def test_lstm_gate_layout_is_interleaved_like_chainer():
    # Unit n reads a, i, f, o from columns 4n, 4n+1, 4n+2, 4n+3.
    x = np.zeros((1, 8))
    x[0, 4:8] = [50.0, 50.0, -50.0, 50.0]     # unit 1: c = tanh(50) * 1 + 0 * c_prev
    x[0, 0:4] = [0.0, -50.0, 50.0, -50.0]     # unit 0: keep c_prev, output gate closed
    c, h = F.lstm(np.array([[0.5, 3.0]]), x)
    np.testing.assert_allclose(c.array, [[0.5, 1.0]], atol=1e-12)
    np.testing.assert_allclose(h.array, [[0.0, np.tanh(1.0)]], atol=1e-12)


def test_lstm_shorter_batch_passes_rows_through():
    c_prev = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    x = np.random.uniform(-1, 1, (1, 12)).astype(np.float32)
    c, h = F.lstm(c_prev, x)
    assert c.shape == (4, 3) and h.shape == (1, 3)
    np.testing.assert_array_equal(c.array[1:], c_prev[1:])


def test_lstm_gradient_when_only_one_output_is_used():
    c_prev = chainlet.Variable(np.random.uniform(-1, 1, (3, 2)))
    x = chainlet.Variable(np.random.uniform(-1, 1, (2, 8)))
    c, h = F.lstm(c_prev, x)
    F.sum(h).backward()
    assert c_prev.grad.shape == (3, 2) and x.grad.shape == (2, 8)
    np.testing.assert_array_equal(c_prev.grad[2:], 0)
    c_prev.cleargrad()
    x.cleargrad()
    c, h = F.lstm(c_prev, x)
    F.sum(c).backward()
    np.testing.assert_array_equal(c_prev.grad[2:], 1)


def test_lstm_double_backward_through_chainlet_grad():
    c_prev = chainlet.Variable(np.random.uniform(-1, 1, (2, 2)))
    x = chainlet.Variable(np.random.uniform(-1, 1, (2, 8)))
    c, h = F.lstm(c_prev, x)
    gx, = chainlet.grad([F.sum(h * h)], [x], enable_double_backprop=True)
    F.sum(gx * gx).backward()
    assert x.grad is not None and np.isfinite(x.grad).all()


def _lstm_grad_ref(c_prev, x, c_next, gc, gh):
    """NumPy reference of LSTMGrad: the gradients of the cell whose state is ``c_next``."""
    batch, units = x.shape[0], c_prev.shape[1]
    r = x.reshape((batch, units, 4) + x.shape[2:])
    A, I, Fg, Og = (np.tanh(r[:, :, 0]), _sigmoid(r[:, :, 1]), _sigmoid(r[:, :, 2]),
                    _sigmoid(r[:, :, 3]))
    T = np.tanh(c_next[:batch])
    g = gh * Og * (1 - T * T) + gc[:batch]
    gx = np.stack([g * I * (1 - A * A), g * A * I * (1 - I),
                   g * c_prev[:batch] * Fg * (1 - Fg), gh * T * Og * (1 - Og)], axis=2)
    gc_prev = gc.copy()
    gc_prev[:batch] = g * Fg
    return gc_prev, gx.reshape(x.shape)


@pytest.mark.parametrize('batch', [3, 2, 0])
def test_lstm_grad_takes_c_next_as_an_input(batch):
    # Chainer's contract: LSTMGrad()(c_prev, x, c_next, gc, gh) -> (gc_prev, gx), with c_next
    # used as given (here deliberately not the cell state of c_prev and x).
    from chainlet.functions.rnn.lstm import LSTMGrad
    rng = np.random.RandomState(0)
    c_prev, c_next, gc = (rng.uniform(-1, 1, (3, 2, 4)) for _ in range(3))
    x = rng.uniform(-1, 1, (batch, 8, 4))
    gh = rng.uniform(-1, 1, (batch, 2, 4))
    gc_prev, gx = LSTMGrad()(c_prev, x, c_next, gc, gh)
    ref = _lstm_grad_ref(c_prev, x, c_next, gc, gh)
    np.testing.assert_allclose(gc_prev.array, ref[0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gx.array, ref[1], rtol=1e-12, atol=1e-12)
    inputs = (c_prev, x, c_next, gc, gh)
    outs = (rng.uniform(-1, 1, (3, 2, 4)), rng.uniform(-1, 1, (batch, 8, 4)))
    chainlet.gradient_check.check_backward(LSTMGrad(), inputs, outs, dtype=np.float64)
    chainlet.gradient_check.check_double_backward(
        LSTMGrad(), inputs, outs, tuple(rng.uniform(-1, 1, a.shape) for a in inputs),
        dtype=np.float64)


def test_lstm_grad_bad_inputs():
    from chainlet.functions.rnn.lstm import LSTMGrad
    c = np.zeros((2, 3))
    x = np.zeros((2, 12))
    with pytest.raises(InvalidType, match='LSTMGrad: expected 5 inputs, got 4'):
        LSTMGrad()(c, x, c, c)
    with pytest.raises(InvalidType, match=r'LSTMGrad: argument c_next: expected shape \(2, 3\)'):
        LSTMGrad()(c, x, np.zeros((1, 3)), c, c)
    with pytest.raises(InvalidType, match=r'LSTMGrad: argument gh: expected shape \(2, 3\)'):
        LSTMGrad()(c, x, c, c, np.zeros((2, 4)))


def test_lstm_triple_backward():
    def f(c_prev, x):
        c, h = F.lstm(c_prev, x)
        return F.sum(c[:2] * h) + F.sum(c * c)
    c_prev = np.random.uniform(-1, 1, (3, 2))
    x = np.random.uniform(-1, 1, (2, 8))
    chainlet.gradient_check.check_double_backward(
        lambda c, x: chainlet.grad([f(c, x)], [c, x], enable_double_backprop=True),
        (c_prev, x), (np.random.uniform(-1, 1, (3, 2)), np.random.uniform(-1, 1, (2, 8))),
        (np.random.uniform(-1, 1, (3, 2)), np.random.uniform(-1, 1, (2, 8))))


@pytest.mark.parametrize('func', ['lstm', 'slstm'])
def test_cell_is_stable_for_large_inputs(func):
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        c_prev = np.full((2, 1), 1e4, np.float32)
        x = np.array([[1e4, -1e4, 1e4, -1e4], [-1e4, 1e4, -1e4, 1e4]], np.float32)
        if func == 'lstm':
            c, h = F.lstm(c_prev, x)
        else:
            c, h = F.slstm(c_prev, c_prev, x, x)
        assert np.isfinite(c.array).all() and np.isfinite(h.array).all()
        assert c.dtype == np.float32 and h.dtype == np.float32


@pytest.mark.parametrize('c_shape, x_shape, match', [
    ((3, 2), (3, 6), r'lstm: argument x: expected shape \(\*, 8\), got \(3, 6\)'),
    ((2, 2), (3, 8), r'lstm: argument x: expected batch size <= 2'),
    ((3,), (3, 4), r'lstm: argument c_prev: expected ndim >= 2'),
    ((3, 2), (3, 8, 1), r'lstm: argument x: expected ndim 2'),
    ((3, 2, 2), (3, 8, 3), r'lstm: argument x: expected shape \(\*, 8, 2\)'),
])
def test_lstm_bad_shapes(c_shape, x_shape, match):
    with pytest.raises(InvalidType, match=match):
        F.lstm(np.zeros(c_shape, np.float32), np.zeros(x_shape, np.float32))


def test_lstm_bad_dtypes():
    with pytest.raises(TypeError, match='lstm: argument x: expected dtype float32'):
        F.lstm(np.zeros((1, 1), np.float32), np.zeros((1, 4), np.float64))
    with pytest.raises(TypeError, match='lstm: argument c_prev: expected a floating-point'):
        F.lstm(np.zeros((1, 1), np.int32), np.zeros((1, 4), np.int32))


@pytest.mark.parametrize('shapes, match', [
    (((2, 2), (2, 2), (2, 8), (1, 8)), r'slstm: argument x2: expected shape \(2, 8\)'),
    (((2, 2), (2, 3), (2, 8), (2, 8)), r'slstm: argument c_prev2: expected shape \(2, 2\)'),
    (((2, 2), (2, 2), (2, 8), (2, 12)), r'slstm: argument x2: expected shape \(2, 8\)'),
])
def test_slstm_bad_shapes(shapes, match):
    with pytest.raises(InvalidType, match=match):
        F.slstm(*(np.zeros(s, np.float32) for s in shapes))
