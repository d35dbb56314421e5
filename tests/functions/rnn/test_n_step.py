"""n_step_{rnn,birnn,lstm,bilstm,gru,bigru} against a per-sequence NumPy loop."""
import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase

N_WEIGHTS = {'rnn': 2, 'lstm': 8, 'gru': 6}


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _cell_ref(kind, activation, x, h, c, w, b):
    """One step for one sequence (1-D vectors), straight from the documented equations."""
    if kind == 'rnn':
        z = w[0] @ x + w[1] @ h + b[0] + b[1]
        return (np.tanh(z) if activation == 'tanh' else np.maximum(z, 0)), None
    if kind == 'gru':
        r = _sigmoid(w[0] @ x + w[3] @ h + b[0] + b[3])
        z = _sigmoid(w[1] @ x + w[4] @ h + b[1] + b[4])
        h_bar = np.tanh(w[2] @ x + b[2] + r * (w[5] @ h + b[5]))
        return (1 - z) * h_bar + z * h, None
    i = _sigmoid(w[0] @ x + w[4] @ h + b[0] + b[4])
    f = _sigmoid(w[1] @ x + w[5] @ h + b[1] + b[5])
    a = np.tanh(w[2] @ x + w[6] @ h + b[2] + b[6])
    o = _sigmoid(w[3] @ x + w[7] @ h + b[3] + b[7])
    c = f * c + i * a
    return o * np.tanh(c), c


def n_step_ref(kind, n_layers, hx, cx, ws, bs, xs, bidirectional, activation='tanh'):
    """Reference written per sequence (not time-major): returns hy, cy, ys like the function."""
    directions = 2 if bidirectional else 1
    lengths = [sum(1 for x in xs if len(x) > i) for i in range(hx.shape[1])]
    hy, cy = hx.copy(), (cx.copy() if cx is not None else None)
    ys_seq = []
    for i, length in enumerate(lengths):
        seq = [xs[t][i] for t in range(length)]
        for layer in range(n_layers):
            outs = []
            for d in range(directions):
                k = layer * directions + d
                h = hx[k, i]
                c = cx[k, i] if cx is not None else None
                out = [None] * length
                for t in (range(length - 1, -1, -1) if d else range(length)):
                    h, c = _cell_ref(kind, activation, seq[t], h, c, ws[k], bs[k])
                    out[t] = h
                hy[k, i] = h
                if c is not None:
                    cy[k, i] = c
                outs.append(out)
            seq = [np.concatenate([o[t] for o in outs]) for t in range(length)]
        ys_seq.append(seq)
    ys = [np.stack([ys_seq[i][t] for i in range(len(xs[t]))]) for t in range(len(xs))]
    return hy, cy, ys


def make_inputs(kind, n_layers, batches, in_size, units, bidirectional, dtype, hx_batch=None,
                scale=0.5):
    directions = 2 if bidirectional else 1
    n_w = N_WEIGHTS[kind]
    hx_batch = hx_batch or batches[0]
    u = np.random.uniform
    hx = u(-1, 1, (n_layers * directions, hx_batch, units)).astype(dtype)
    cx = u(-1, 1, hx.shape).astype(dtype) if kind == 'lstm' else None
    ws, bs = [], []
    for k in range(n_layers * directions):
        layer_in = in_size if k < directions else units * directions
        ws.append([u(-scale, scale, (units, layer_in if j < n_w // 2 else units)).astype(dtype)
                   for j in range(n_w)])
        bs.append([u(-scale, scale, units).astype(dtype) for _ in range(n_w)])
    xs = [u(-1, 1, (b, in_size)).astype(dtype) for b in batches]
    return hx, cx, ws, bs, xs


def call(kind, bidirectional, n_layers, dropout, hx, cx, ws, bs, xs, **kw):
    name = 'n_step_' + ('bi' if bidirectional else '') + kind
    func = getattr(F, name)
    if kind == 'lstm':
        return func(n_layers, dropout, hx, cx, ws, bs, xs, **kw)
    hy, ys = func(n_layers, dropout, hx, ws, bs, xs, **kw)
    return hy, None, ys


class _NStepCase(PytestFunctionTestCase):
    """Flattens (hx, [cx], ws, bs, xs) into the harness's tuple of inputs."""

    kind = 'lstm'
    bidirectional = False
    activation = 'tanh'
    in_size, units = 3, 2

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=2e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def generate_inputs(self):
        hx, cx, ws, bs, xs = make_inputs(self.kind, self.n_layers, self.batches, self.in_size,
                                         self.units, self.bidirectional, self.dtype,
                                         getattr(self, 'hx_batch', None))
        self._n_states = len(ws)
        flat = [hx] + ([cx] if cx is not None else [])
        flat += [w for group in ws for w in group] + [b for group in bs for b in group]
        return tuple(flat + xs)

    def _unflatten(self, inputs):
        inputs = list(inputs)
        hx = inputs.pop(0)
        cx = inputs.pop(0) if self.kind == 'lstm' else None
        n_w, n = N_WEIGHTS[self.kind], self._n_states
        ws = [inputs[k * n_w:(k + 1) * n_w] for k in range(n)]
        bs = [inputs[n * n_w + k * n_w:n * n_w + (k + 1) * n_w] for k in range(n)]
        return hx, cx, ws, bs, inputs[2 * n * n_w:]

    def forward(self, inputs, device):
        hx, cx, ws, bs, xs = self._unflatten(inputs)
        kw = {'activation': self.activation} if self.kind == 'rnn' else {}
        hy, cy, ys = call(self.kind, self.bidirectional, self.n_layers, 0.0, hx, cx, ws, bs, xs,
                          **kw)
        return (hy,) + ((cy,) if cy is not None else ()) + tuple(ys)

    def forward_expected(self, inputs):
        hx, cx, ws, bs, xs = self._unflatten([a.astype(np.float64) for a in inputs])
        hy, cy, ys = n_step_ref(self.kind, self.n_layers, hx, cx, ws, bs, xs,
                                self.bidirectional, self.activation)
        out = (hy,) + ((cy,) if cy is not None else ()) + tuple(ys)
        return tuple(y.astype(self.dtype) for y in out)


_FAST = [
    {'n_layers': 1, 'batches': [2, 2, 1]},
    {'n_layers': 2, 'batches': [2, 1], 'hx_batch': 3},
]


class TestNStepLSTM(_NStepCase):
    kind = 'lstm'
    params = _FAST


class TestNStepBiLSTM(_NStepCase):
    kind, bidirectional = 'lstm', True
    params = _FAST


class TestNStepGRU(_NStepCase):
    kind = 'gru'
    params = _FAST


class TestNStepBiGRU(_NStepCase):
    kind, bidirectional = 'gru', True
    params = _FAST


class TestNStepRNN(_NStepCase):
    kind = 'rnn'
    params = _FAST


class TestNStepBiRNN(_NStepCase):
    kind, bidirectional = 'rnn', True
    params = _FAST


class TestNStepRNNReLU(_NStepCase):
    kind, activation = 'rnn', 'relu'
    dtypes = (np.float64,)  # keep away from the kink: float64 only, checked for |z| > 0
    params = [{'n_layers': 1, 'batches': [2, 1]}]
    test_noncontiguous = False


class TestNStepSlow(_NStepCase):
    """Longer, deeper, uneven cases for every kind (run with -m slow)."""

    pytestmark = pytest.mark.slow
    kind, bidirectional = 'lstm', True
    params = [{'n_layers': 3, 'batches': [3, 3, 2, 1, 1], 'kind': k, 'bidirectional': bi}
              for k in ('lstm', 'gru', 'rnn') for bi in (False, True)]


# ---------------------------------------------------------------------------------------------
# Plain tests: semantics, layout, dropout and errors.

@pytest.mark.parametrize('kind', ['lstm', 'gru', 'rnn'])
@pytest.mark.parametrize('bidirectional', [False, True])
def test_forward_matches_reference_with_uneven_lengths(kind, bidirectional):
    np.random.seed(0)
    args = make_inputs(kind, 2, [4, 3, 3, 1], 3, 5, bidirectional, np.float64, hx_batch=5)
    hy, cy, ys = call(kind, bidirectional, 2, 0.0, *args)
    e_hy, e_cy, e_ys = n_step_ref(kind, 2, *args, bidirectional)
    np.testing.assert_allclose(hy.array, e_hy, atol=1e-12)
    if kind == 'lstm':
        np.testing.assert_allclose(cy.array, e_cy, atol=1e-12)
    assert isinstance(ys, tuple) and len(ys) == 4
    for y, e in zip(ys, e_ys):
        np.testing.assert_allclose(y.array, e, atol=1e-12)
    # Rows of hx without any input (batch 4 of 5) come back unchanged.
    np.testing.assert_array_equal(hy.array[:, 4], args[0][:, 4])


def test_n_step_lstm_matches_lstm_with_chainers_stacked_weights():
    # Chainer feeds lstm() with ws stacked as [w2, w0, w1, w3] along a new axis 1.
    np.random.seed(1)
    hx, cx, ws, bs, xs = make_inputs('lstm', 1, [2], 3, 4, False, np.float64)
    w, b = ws[0], bs[0]
    xw = np.stack([w[2], w[0], w[1], w[3]], axis=1).reshape(16, 3)
    hw = np.stack([w[6], w[4], w[5], w[7]], axis=1).reshape(16, 4)
    xb = np.stack([b[2], b[0], b[1], b[3]], axis=1).reshape(16)
    hb = np.stack([b[6], b[4], b[5], b[7]], axis=1).reshape(16)
    c, h = F.lstm(cx[0], xs[0] @ xw.T + xb + hx[0] @ hw.T + hb)
    hy, cy, ys = F.n_step_lstm(1, 0.0, hx, cx, ws, bs, xs)
    np.testing.assert_allclose(hy.array[0], h.array, atol=1e-12)
    np.testing.assert_allclose(cy.array[0], c.array, atol=1e-12)


def test_gradients_reach_every_input():
    np.random.seed(2)
    hx, cx, ws, bs, xs = make_inputs('lstm', 2, [2, 1], 3, 2, True, np.float32)
    to_var = chainlet.Variable
    hx, cx = to_var(hx), to_var(cx)
    ws = [[to_var(w) for w in g] for g in ws]
    bs = [[to_var(b) for b in g] for g in bs]
    xs = [to_var(x) for x in xs]
    hy, cy, ys = F.n_step_bilstm(2, 0.0, hx, cx, ws, bs, xs)
    loss = F.sum(hy) + F.sum(cy) + sum(F.sum(y) for y in ys)
    loss.backward()
    for v in [hx, cx] + [w for g in ws for w in g] + [b for g in bs for b in g] + xs:
        assert v.grad is not None and v.grad.shape == v.shape and v.grad.dtype == np.float32


def test_dropout_only_in_training():
    np.random.seed(3)
    args = make_inputs('gru', 2, [3, 2], 3, 4, False, np.float32)
    hy0, ys0 = F.n_step_gru(2, 0.0, args[0], *args[2:])
    with chainlet.using_config('train', False):
        hy1, ys1 = F.n_step_gru(2, 0.5, args[0], *args[2:])
    np.testing.assert_array_equal(hy0.array, hy1.array)
    np.random.seed(4)
    hy2, _ = F.n_step_gru(2, 0.5, args[0], *args[2:])
    np.random.seed(4)
    hy3, _ = F.n_step_gru(2, 0.5, args[0], *args[2:])
    np.testing.assert_array_equal(hy2.array, hy3.array)   # the global RNG drives the masks
    assert not np.allclose(hy2.array[1], hy0.array[1])    # second layer sees dropped inputs
    np.testing.assert_array_equal(hy2.array[0], hy0.array[0])  # first layer input is kept


def test_relu_activation_matches_reference():
    np.random.seed(5)
    args = make_inputs('rnn', 2, [3, 1], 3, 4, True, np.float64)
    hy, ys = F.n_step_birnn(2, 0.0, args[0], *args[2:], activation='relu')
    e_hy, _, e_ys = n_step_ref('rnn', 2, *args, True, 'relu')
    np.testing.assert_allclose(hy.array, e_hy, atol=1e-12)
    for y, e in zip(ys, e_ys):
        np.testing.assert_allclose(y.array, e, atol=1e-12)


def test_dtype_is_kept():
    args = make_inputs('lstm', 1, [2, 1], 3, 2, False, np.float16)
    hy, cy, ys = F.n_step_lstm(1, 0.0, *args)
    assert hy.dtype == cy.dtype == ys[0].dtype == np.float16


def _lstm_args(**over):
    np.random.seed(6)
    hx, cx, ws, bs, xs = make_inputs('lstm', 2, [3, 2], 3, 4, False, np.float32)
    args = dict(n_layers=2, dropout_ratio=0.0, hx=hx, cx=cx, ws=ws, bs=bs, xs=xs)
    args.update(over)
    return args


@pytest.mark.parametrize('change, error, match', [
    (lambda a: a.update(xs=[np.zeros((2, 3), np.float32), np.zeros((3, 3), np.float32)]),
     ValueError, r'n_step_lstm: argument xs: batch sizes must not increase.*\[2, 3\]'),
    (lambda a: a.update(xs=[np.zeros((4, 3), np.float32)]),
     ValueError, r'n_step_lstm: argument xs: .*not exceed that of hx \(3\)'),
    (lambda a: a.update(xs=[np.zeros((3, 5), np.float32)]),
     ValueError, r'n_step_lstm: arguments xs and ws: inconsistent input size: xs\[0\] has '
                 r'shape \(3, 5\) \(5 inputs\), ws\[0\]\[0\] has shape \(4, 3\) \(3 inputs\)'),
    (lambda a: a.update(xs=[np.zeros((3, 3), np.float32), np.zeros((2, 5), np.float32)]),
     ValueError, r'n_step_lstm: argument xs\[1\]: expected shape \(B_t, 3\), got \(2, 5\)'),
    (lambda a: a.update(xs=[]), ValueError, 'n_step_lstm: argument xs: expected a non-empty'),
    (lambda a: a.update(hx=a['hx'][:1]),
     ValueError, r'n_step_lstm: argument hx: expected shape \(2, B, N\)'),
    (lambda a: a.update(cx=a['cx'][:, :2]),
     ValueError, r'n_step_lstm: argument cx: expected shape \(2, 3, 4\), got \(2, 2, 4\)'),
    (lambda a: a.update(ws=a['ws'][:1]),
     ValueError, r'n_step_lstm: argument ws: expected 2 lists .* of 8 arrays, got 1'),
    (lambda a: a['bs'][1].pop(), ValueError,
     r'n_step_lstm: argument bs\[1\]: expected a list of 8 arrays, got 7'),
    (lambda a: a['ws'][1].__setitem__(5, np.zeros((4, 3), np.float32)), ValueError,
     r'n_step_lstm: argument ws\[1\]\[5\]: expected shape \(4, 4\), got \(4, 3\)'),
    (lambda a: a['bs'][0].__setitem__(2, np.zeros(4, np.float64)), TypeError,
     r'n_step_lstm: argument bs\[0\]\[2\]: expected dtype float32 \(the dtype of hx\)'),
    (lambda a: a.update(xs=[np.zeros((3, 3), np.int32)]), TypeError,
     r'n_step_lstm: argument xs\[0\]: expected a floating-point dtype, got int32'),
    (lambda a: a.update(n_layers=0), ValueError, 'n_step_lstm: argument n_layers: expected >= 1'),
    (lambda a: a.update(n_layers=2.0), TypeError, 'n_step_lstm: argument n_layers: expected an'),
    (lambda a: a.update(dropout_ratio=1.0), ValueError,
     r'n_step_lstm: argument dropout_ratio: expected a value in \[0, 1\)'),
])
def test_n_step_lstm_errors(change, error, match):
    args = _lstm_args()
    change(args)
    with pytest.raises(error, match=match):
        F.n_step_lstm(**args)


def test_bidirectional_weight_shapes_are_checked():
    hx, cx, ws, bs, xs = make_inputs('gru', 2, [2], 3, 4, True, np.float32)
    ws[2][0] = np.zeros((4, 4), np.float32)   # layer 1 takes [h_f; h_b] of size 8
    with pytest.raises(ValueError, match=r'n_step_bigru: argument ws\[2\]\[0\]: expected shape '
                                         r'\(4, 8\), got \(4, 4\)'):
        F.n_step_bigru(2, 0.0, hx, ws, bs, xs)


def test_bad_activation_and_removed_keywords():
    hx, _, ws, bs, xs = make_inputs('rnn', 1, [2], 3, 4, False, np.float32)
    with pytest.raises(ValueError, match="n_step_rnn: argument activation: expected 'tanh' or "
                                         "'relu', got 'sigmoid'"):
        F.n_step_rnn(1, 0.0, hx, ws, bs, xs, activation='sigmoid')
    with pytest.raises(ValueError, match="n_step_rnn: argument train: not supported"):
        F.n_step_rnn(1, 0.0, hx, ws, bs, xs, train=True)
    with pytest.raises(TypeError, match='n_step_rnn: got unexpected keyword argument'):
        F.n_step_rnn(1, 0.0, hx, ws, bs, xs, foo=1)
