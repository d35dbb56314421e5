import numpy as np
import pytest

import chainlet.functions as F
import chainlet.links as L
from chainlet.reporter import Reporter


def _value(v):
    return float(getattr(v, 'array', v))


def _setup():
    rng = np.random.RandomState(0)
    model = L.Classifier(L.Linear(3, 4))
    x = rng.randn(6, 3).astype(np.float32)
    t = np.array([0, 1, 2, 3, 0, 1], np.int32)
    return model, x, t


def test_reports_loss_and_accuracy():
    model, x, t = _setup()
    reporter = Reporter()
    reporter.add_observer('main', model)
    observation = {}
    with reporter.scope(observation):
        loss = model(x, t)
    y = model.predictor(x)
    expected_loss = F.softmax_cross_entropy(y, t).array
    expected_acc = F.accuracy(y, t).array
    assert loss is model.loss
    np.testing.assert_allclose(loss.array, expected_loss, rtol=1e-6)
    np.testing.assert_allclose(model.y.array, y.array)
    assert sorted(observation) == ['main/accuracy', 'main/loss']
    assert _value(observation['main/loss']) == pytest.approx(float(expected_loss), rel=1e-6)
    assert _value(observation['main/accuracy']) == pytest.approx(float(expected_acc))
    loss.backward()
    assert model.predictor.W.grad is not None
    assert [n for n, _ in model.namedparams()] == ['/predictor/W', '/predictor/b']


def test_compute_accuracy_off_and_label_key():
    model, x, t = _setup()
    model.compute_accuracy = False
    observation = {}
    reporter = Reporter()
    reporter.add_observer('main', model)
    with reporter.scope(observation):
        model(x, t)
    assert sorted(observation) == ['main/loss'] and model.accuracy is None

    first = L.Classifier(lambda x: x @ np.eye(3, 4, dtype=np.float32), label_key=0)
    loss = first(t, x)
    np.testing.assert_allclose(
        loss.array, F.softmax_cross_entropy(x @ np.eye(3, 4, dtype=np.float32), t).array,
        rtol=1e-6)
    named = L.Classifier(L.Linear(3, 4), label_key='t')
    assert named(x, t=t).shape == ()
    with pytest.raises(ValueError, match="Label key 't'"):
        named(x, t)
    with pytest.raises(ValueError, match='out of range'):
        L.Classifier(L.Linear(3, 4), label_key=2)(x, t)
    with pytest.raises(TypeError, match='label_key'):
        L.Classifier(L.Linear(3, 4), label_key=1.0)


def test_custom_loss_and_no_reporter():
    model = L.Classifier(L.Linear(2, 1), lossfun=F.mean_squared_error)
    model.compute_accuracy = False
    x = np.ones((3, 2), np.float32)
    t = np.zeros((3, 1), np.float32)
    loss = model(x, t)  # no active reporter: reporting is a no-op
    np.testing.assert_allclose(loss.array, np.mean(model.y.array ** 2), rtol=1e-6)
