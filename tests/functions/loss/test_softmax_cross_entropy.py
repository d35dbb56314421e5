import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet.testing import PytestFunctionTestCase


def _log_softmax(x):
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))


def _reference(x, t, normalize=True, class_weight=None, ignore_label=-1, reduce='mean'):
    log_y = _log_softmax(x.astype(np.float64))
    log_y = np.moveaxis(log_y, 1, -1).reshape(-1, x.shape[1])
    tf = t.ravel()
    valid = tf != ignore_label
    loss = np.zeros(tf.shape)
    for i in np.flatnonzero(valid):
        w = 1.0 if class_weight is None else class_weight[tf[i]]
        loss[i] = -log_y[i, tf[i]] * w
    if reduce == 'no':
        return loss.reshape(t.shape)
    count = valid.sum() if normalize else len(x)
    return np.asarray(loss.sum() / max(count, 1))


class TestSoftmaxCrossEntropy(PytestFunctionTestCase):
    params = [
        {'shape': (4, 3), 'reduce': 'mean', 'normalize': True, 'weight': False},
        {'shape': (4, 3), 'reduce': 'mean', 'normalize': False, 'weight': True},
        {'shape': (4, 3), 'reduce': 'no', 'normalize': True, 'weight': True},
        {'shape': (2, 3, 2), 'reduce': 'mean', 'normalize': True, 'weight': True},
        {'shape': (2, 3, 2, 1), 'reduce': 'no', 'normalize': True, 'weight': False},
        {'shape': (0, 3), 'reduce': 'mean', 'normalize': True, 'weight': False},
        {'shape': (0, 3), 'reduce': 'no', 'normalize': True, 'weight': False},
        # No ignored label: the unmasked path of the common case.
        {'shape': (5, 4), 'reduce': 'mean', 'normalize': True, 'weight': False, 'ignore': False},
        {'shape': (5, 4), 'reduce': 'mean', 'normalize': False, 'weight': False,
         'ignore': False},
    ]
    ignore = True

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=1e-2, rtol=5e-2)

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape).astype(self.dtype)
        t_shape = self.shape[:1] + self.shape[2:]
        t = np.random.randint(0, self.shape[1], t_shape).astype(np.int32)
        if t.size > 1 and self.ignore:
            t.ravel()[0] = -1  # one ignored instance
        self.class_weight = (np.random.uniform(0.5, 2, self.shape[1]).astype(self.dtype)
                             if self.weight else None)
        return x, t

    def forward(self, inputs, device):
        x, t = inputs
        return F.softmax_cross_entropy(x, t, normalize=self.normalize, reduce=self.reduce,
                                       class_weight=self.class_weight),

    def forward_expected(self, inputs):
        x, t = inputs
        w = None if self.class_weight is None else self.class_weight.astype(np.float64)
        return _reference(x, t, self.normalize, w, reduce=self.reduce).astype(self.dtype),


class TestSoftmaxCrossEntropyNoCache(TestSoftmaxCrossEntropy):
    params = [{'shape': (3, 4), 'reduce': 'mean', 'normalize': True, 'weight': True}]

    def forward(self, inputs, device):
        x, t = inputs
        return F.softmax_cross_entropy(x, t, cache_score=False, class_weight=self.class_weight,
                                       enable_double_backprop=True),


class TestSoftTarget(PytestFunctionTestCase):
    params = [
        {'shape': (3, 4), 'loss': 'cross-entropy', 'reduce': 'mean'},
        {'shape': (3, 4), 'loss': 'kl-divergence', 'reduce': 'mean'},
        {'shape': (2, 3, 2), 'loss': 'cross-entropy', 'reduce': 'no'},
        {'shape': (2, 3, 2), 'loss': 'kl-divergence', 'reduce': 'no'},
    ]

    def setup(self):
        if self.dtype == np.float16:
            self.check_forward_options.update(atol=5e-3, rtol=5e-3)
            self.check_backward_options.update(atol=2e-2, rtol=5e-2)
            self.check_double_backward_options.update(atol=5e-2, rtol=1e-1)

    def generate_inputs(self):
        x = np.random.uniform(-2, 2, self.shape).astype(self.dtype)
        t = np.random.uniform(0.2, 1, self.shape)
        self.t = (t / t.sum(axis=1, keepdims=True)).astype(self.dtype)
        return x,

    def forward(self, inputs, device):
        t = device.send(self.t) if hasattr(device, 'send') else self.t
        return F.softmax_cross_entropy(inputs[0], t, reduce=self.reduce,
                                       soft_target_loss=self.loss),

    def forward_expected(self, inputs):
        x, t = inputs[0].astype(np.float64), self.t.astype(np.float64)
        log_y = _log_softmax(x)
        if self.loss == 'kl-divergence':
            loss = (t * (np.log(t + 1e-7) - log_y)).sum(axis=1)
        else:
            loss = -(t * log_y).sum(axis=1)
        if self.reduce == 'mean':
            loss = np.asarray(loss.sum() / (x.size / x.shape[1]))
        return loss.astype(self.dtype),


def test_matches_log_softmax_example():
    x = np.array([[-1, 0, 1, 2], [2, 0, 1, -1]], np.float32)
    t = np.array([3, 0], np.int32)
    y = F.softmax_cross_entropy(x, t)
    expected = np.mean([-F.log_softmax(x).array[i, c] for i, c in enumerate(t)])
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)
    assert y.dtype == np.float32 and y.shape == ()


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
def test_stable_for_large_scores(dtype):
    x = chainlet.Variable(np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]], dtype))
    t = np.array([1, 0], np.int32)
    loss = F.softmax_cross_entropy(x, t)
    assert np.isfinite(loss.array)
    np.testing.assert_allclose(float(loss.array), 2e4, rtol=1e-3)
    loss.backward()
    assert np.isfinite(x.grad).all()
    np.testing.assert_allclose(x.grad, [[0.5, -0.5, 0], [-0.5, 0.25, 0.25]], atol=1e-3)


def test_stable_soft_target():
    x = chainlet.Variable(np.array([[1e4, -1e4]], np.float32))
    t = np.array([[0.0, 1.0]], np.float32)
    loss = F.softmax_cross_entropy(x, t, soft_target_loss='kl-divergence')
    loss.backward()
    assert np.isfinite(loss.array) and np.isfinite(x.grad).all()


@pytest.mark.parametrize('dtype', [np.float16, np.float32, np.float64])
@pytest.mark.parametrize('cache_score', [True, False])
def test_unmasked_path_matches_the_masked_one_to_the_bit(monkeypatch, dtype, cache_score):
    # With every label a class, forward and backward skip the masks; the label check reporting
    # "some ignored" sends the same inputs through the masked path.
    from chainlet.functions.loss import softmax_cross_entropy as sce
    x0 = np.random.default_rng(1).standard_normal((7, 5)).astype(dtype)
    t = np.array([0, 4, 2, 2, 1, 3, 0], np.int32)

    def run():
        x = chainlet.Variable(x0.copy())
        loss = F.softmax_cross_entropy(x, t, cache_score=cache_score)
        loss.grad = np.asarray(1.5, dtype)
        loss.backward()
        return loss.array, x.grad
    fast = run()
    real_check = sce.check_labels
    monkeypatch.setattr(sce, 'check_labels', lambda *a: real_check(*a) and False)
    slow = run()
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_label_check_says_whether_every_label_is_a_class():
    from chainlet import type_check
    assert type_check.labels_in_range('f', 't', np.array([0, 2, 1]), 3) is True
    assert type_check.labels_in_range('f', 't', np.array([0, -1, 1]), 3, -1) is False
    assert type_check.labels_in_range('f', 't', np.zeros(0, np.int32), 3) is False
    # An ignore label that is also a class index (Caffe's loss layers allow it).
    assert type_check.labels_in_range('f', 't', np.array([0, 2, 1]), 3, 1) is False
    with pytest.raises(ValueError, match='got -2, 3'):
        type_check.labels_in_range('f', 't', np.array([0, -2, 3]), 3, -1)


def test_all_ignored_gives_zero():
    x = chainlet.Variable(np.random.randn(3, 4).astype(np.float32))
    t = np.full(3, -1, np.int32)
    loss = F.softmax_cross_entropy(x, t)
    assert float(loss.array) == 0
    loss.backward()
    assert (x.grad == 0).all()


def test_empty_batch_gives_positive_zero():
    loss = F.softmax_cross_entropy(np.zeros((0, 3), np.float32), np.zeros(0, np.int32))
    assert loss.array == 0 and not np.signbit(loss.array)


def test_ignore_label_inside_the_class_range():
    x = np.random.randn(4, 3)
    t = np.array([0, 1, 2, 1], np.int32)
    y = F.softmax_cross_entropy(x, t, ignore_label=1)
    np.testing.assert_allclose(y.array, _reference(x, t, ignore_label=1))


def test_custom_ignore_label():
    x = np.random.randn(3, 4)
    t = np.array([0, 5, 2], np.int32)
    y = F.softmax_cross_entropy(x, t, ignore_label=5)
    np.testing.assert_allclose(y.array, _reference(x, t, ignore_label=5))


def test_double_backprop_by_default():
    x = chainlet.Variable(np.random.randn(3, 4))
    t = np.array([0, 1, 3], np.int32)
    loss = F.softmax_cross_entropy(x, t)
    gx, = chainlet.grad([loss], [x], enable_double_backprop=True)
    (gx * gx).sum().backward()
    assert x.grad is not None and np.isfinite(x.grad).all()


def test_errors():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match='softmax_cross_entropy: argument t: expected labels'):
        F.softmax_cross_entropy(x, np.array([0, 3], np.int32))
    with pytest.raises(ValueError, match='softmax_cross_entropy: argument t: expected labels'):
        F.softmax_cross_entropy(x, np.array([0, -2], np.int32))
    with pytest.raises(TypeError, match='softmax_cross_entropy: argument t: expected shape'):
        F.softmax_cross_entropy(x, np.array([0, 1, 2], np.int32))
    with pytest.raises(TypeError, match='softmax_cross_entropy: argument x'):
        F.softmax_cross_entropy(np.zeros(3, np.float32), np.array([0, 1, 2], np.int32))
    with pytest.raises(TypeError, match=r'softmax_cross_entropy: argument t: expected .*float '
                       r'soft targets of shape \(2, 3\), got float32 array of shape \(2, 4\)'):
        F.softmax_cross_entropy(x, np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="softmax_cross_entropy: argument reduce"):
        F.softmax_cross_entropy(x, np.array([0, 1], np.int32), reduce='sum')
    with pytest.raises(ValueError, match='softmax_cross_entropy: argument soft_target_loss'):
        F.softmax_cross_entropy(x, np.array([0, 1], np.int32), soft_target_loss='kl')
    with pytest.raises(TypeError, match='softmax_cross_entropy: argument class_weight'):
        F.softmax_cross_entropy(x, np.array([0, 1], np.int32),
                                class_weight=np.array([1, 2, 3], np.int32))
    with pytest.raises(TypeError, match='softmax_cross_entropy: argument class_weight'):
        F.softmax_cross_entropy(x, np.array([0, 1], np.int32),
                                class_weight=np.ones(4, np.float32))


def test_float_labels_message_names_the_dtype():
    # Issue 13, item 7: float32 labels of the labels' shape got a bare shape message.
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(chainlet.utils.type_check.InvalidType,
                       match=r'integer labels of shape \(2,\) or float soft targets of shape '
                       r'\(2, 3\), got float32 array of shape \(2,\)'):
        F.softmax_cross_entropy(x, np.zeros(2, np.float32))


def test_out_of_range_labels_share_the_loss_label_check():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(ValueError, match=r'expected labels in \[0, 4\) or ignore_label -1, '
                       r'got -2, 4'):
        F.softmax_cross_entropy(x, np.array([4, -2, -1], np.int32))
    with pytest.raises(ValueError, match=r'hinge: argument t: expected labels in \[0, 4\), '
                       r'got 7'):
        F.hinge(x, np.array([0, 7, 1], np.int32))
