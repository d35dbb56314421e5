import itertools

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _brute_force_nll(x, labels, blank):
    """-log p(labels | x) by summing over every alignment (tiny sizes only)."""
    x = x.astype(np.float64)
    log_y = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    total = 0.0
    for seq in itertools.product(range(x.shape[1]), repeat=len(x)):
        collapsed = [s for i, s in enumerate(seq) if i == 0 or s != seq[i - 1]]
        if [s for s in collapsed if s != blank] == list(labels):
            total += np.exp(sum(log_y[i, s] for i, s in enumerate(seq)))
    return -np.log(total)


def _reference(xs, t, blank, input_length, label_length, reduce):
    batch = xs[0].shape[0]
    x = np.stack(xs)  # (T, B, V)
    losses = []
    for b in range(batch):
        n_in = len(xs) if input_length is None else input_length[b]
        n_lab = t.shape[1] if label_length is None else label_length[b]
        losses.append(_brute_force_nll(x[:n_in, b], t[b, :n_lab], blank))
    losses = np.array(losses)
    return np.asarray(losses.mean()) if reduce == 'mean' else losses


class TestCTC(PytestFunctionTestCase):
    # Double backprop is not provided for CTC (its backward works on arrays).
    skip_double_backward_test = True
    params = [
        {'T': 4, 'B': 2, 'V': 3, 'L': 2, 'blank': 0, 'lengths': False, 'reduce': 'mean'},
        {'T': 4, 'B': 2, 'V': 3, 'L': 2, 'blank': 2, 'lengths': False, 'reduce': 'no'},
        {'T': 5, 'B': 3, 'V': 3, 'L': 2, 'blank': 0, 'lengths': True, 'reduce': 'no'},
        {'T': 3, 'B': 2, 'V': 3, 'L': 0, 'blank': 1, 'lengths': False, 'reduce': 'mean'},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=2e-2, rtol=5e-2)

    def generate_inputs(self):
        labels = [v for v in range(self.V) if v != self.blank]
        t = np.random.choice(labels, (self.B, self.L)).astype(np.int32)
        if self.L == 2:
            t[0] = labels[0]  # a repeated label needs a blank in between
        if self.lengths:
            self.input_length = np.array([self.T, self.T - 1, 3], np.int32)[:self.B]
            self.label_length = np.array([2, 1, 0], np.int32)[:self.B]
        else:
            self.input_length = self.label_length = None
        xs = [np.random.uniform(-1, 1, (self.B, self.V)).astype(self.dtype)
              for _ in range(self.T)]
        return (t,) + tuple(xs)

    def forward(self, inputs, device):
        t, xs = inputs[0], list(inputs[1:])
        return F.connectionist_temporal_classification(
            xs, t, self.blank, input_length=self.input_length,
            label_length=self.label_length, reduce=self.reduce),

    def forward_expected(self, inputs):
        t, xs = inputs[0], inputs[1:]
        return _reference(xs, t, self.blank, self.input_length, self.label_length,
                          self.reduce).astype(self.dtype),


def test_padding_steps_get_zero_gradient():
    xs = [chainlet.Variable(np.random.randn(2, 4)) for _ in range(5)]
    t = np.array([[1, 2], [3, 3]], np.int32)
    loss = F.connectionist_temporal_classification(
        xs, t, 0, input_length=np.array([5, 3]), label_length=np.array([2, 1]))
    loss.backward()
    for x in xs[3:]:
        assert (x.grad[1] == 0).all()
        assert (x.grad[0] != 0).any()


def test_gradient_rows_sum_to_zero():
    # The gradient with respect to the scores is softmax - occupancy: each row sums to 0.
    xs = [chainlet.Variable(np.random.randn(3, 5)) for _ in range(6)]
    t = np.random.randint(1, 5, (3, 2)).astype(np.int32)
    F.connectionist_temporal_classification(xs, t, 0, reduce='no').sum().backward()
    for x in xs:
        np.testing.assert_allclose(x.grad.sum(axis=1), 0, atol=1e-12)


def test_large_scores_are_stable():
    xs = [chainlet.Variable(np.array([[1e4, -1e4, 0.0]], np.float32)) for _ in range(3)]
    loss = F.connectionist_temporal_classification(xs, np.array([[1]], np.int32), 0)
    loss.backward()
    assert np.isfinite(loss.array)
    assert all(np.isfinite(x.grad).all() for x in xs)


def test_impossible_alignment_is_finite_and_large():
    xs = [chainlet.Variable(np.zeros((1, 3), np.float32))]
    loss = F.connectionist_temporal_classification(xs, np.array([[1, 2]], np.int32), 0)
    assert loss.array > 1e20
    loss.backward()
    assert np.isfinite(xs[0].grad).all()


def test_double_backprop_raises():
    xs = [chainlet.Variable(np.random.randn(1, 3)) for _ in range(2)]
    loss = F.connectionist_temporal_classification(xs, np.array([[1]], np.int32), 0)
    gx = chainlet.grad([loss], xs, enable_double_backprop=True)
    with pytest.raises(RuntimeError, match='not differentiable'):
        (gx[0] * gx[0]).sum().backward()


def test_errors():
    xs = [np.zeros((2, 3), np.float32)] * 3
    t = np.array([[1], [2]], np.int32)
    ctc = F.connectionist_temporal_classification
    with pytest.raises(TypeError, match='argument x'):
        ctc(np.zeros((3, 2, 3), np.float32), t, 0)
    with pytest.raises(TypeError, match='argument blank_symbol'):
        ctc(xs, t, 0.0)
    with pytest.raises(ValueError, match='argument blank_symbol'):
        ctc(xs, t, 3)
    with pytest.raises(ValueError, match='argument reduce'):
        ctc(xs, t, 0, reduce='sum')
    with pytest.raises(ValueError, match='argument input_length'):
        ctc(xs, t, 0, input_length=np.array([4, 3]))
    with pytest.raises(TypeError, match='argument label_length'):
        ctc(xs, t, 0, label_length=np.array([1]))
    with pytest.raises(ValueError, match='argument t: expected labels'):
        ctc(xs, np.array([[1], [3]], np.int32), 0)
    with pytest.raises(TypeError, match=r'argument x\[1\]'):
        ctc([xs[0], np.zeros((2, 4), np.float32)], t, 0)
    with pytest.raises(TypeError, match='connectionist_temporal_classification: argument t'):
        ctc(xs, np.array([[1], [2]], np.float32), 0)
