import io
import threading

import numpy as np
import pytest

import chainlet
import chainlet.functions as F
from chainlet import reporter as R
from chainlet import serializers


class Model(chainlet.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.child = chainlet.Link()
            with self.child.init_scope():
                self.child.w = chainlet.Parameter(np.array([2.0], np.float32))

    def forward(self, x):
        loss = F.sum(x * self.child.w)
        R.report({'loss': loss}, self)
        R.report({'w': self.child.w}, self.child)
        return loss


def test_observer_prefixes_and_scope():
    model = Model()
    rep = R.Reporter()
    rep.add_observer('main', model)
    rep.add_observers('main', model.namedlinks(skipself=True))
    x = chainlet.Variable(np.array([1.0, 2.0], np.float32))
    obs = {}
    with rep.scope(obs):
        assert R.get_current_reporter() is rep
        model(x)
        R.report({'lr': 0.5})
    assert sorted(obs) == ['lr', 'main/child/w', 'main/loss']
    assert float(obs['main/loss'].array) == 6.0
    assert obs['main/loss'].creator is None  # graph not kept
    assert rep.observation == {}  # restored after the scope
    with pytest.raises(RuntimeError, match='no reporter is active'):
        R.get_current_reporter()


def test_keep_graph_on_report():
    model = Model()
    rep = R.Reporter()
    rep.add_observer('main', model)
    rep.add_observers('main', model.namedlinks(skipself=True))
    x = chainlet.Variable(np.array([1.0, 2.0], np.float32))
    with chainlet.using_config('keep_graph_on_report', True):
        with rep:
            model(x)
    loss = rep.observation['main/loss']
    assert loss.creator is not None
    loss.backward()
    np.testing.assert_array_equal(model.child.w.grad, [3.0])


def test_module_report_is_noop_without_reporter_and_unregistered_observer():
    R.report({'x': 1.0}, object())  # no reporter, no error
    rep = R.Reporter()
    with rep:
        with pytest.raises(KeyError, match='not registered'):
            R.report({'x': 1.0}, object())


def test_nested_reporters_and_report_scope():
    outer, inner = R.Reporter(), R.Reporter()
    with outer:
        R.report({'a': 1})
        with inner:
            R.report({'b': 2})
            sub = {}
            with R.report_scope(sub):
                R.report({'c': 3})
            R.report({'d': 4})
        R.report({'e': 5})
    assert outer.observation == {'a': 1, 'e': 5}
    assert inner.observation == {'b': 2, 'd': 4}
    assert sub == {'c': 3}
    with pytest.raises(TypeError, match='expected a dict'):
        with outer.scope([]):
            pass


def test_reporters_are_thread_local():
    rep = R.Reporter()
    seen = []

    def worker():
        seen.append(R._reporters() == [])
        R.report({'from_thread': 1})

    with rep:
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    assert seen == [True] and rep.observation == {}


def test_summary_statistics_and_conversions():
    s = R.Summary()
    values = [1.0, np.float32(2.0), np.asarray(4.0), chainlet.Variable(np.asarray(5.0))]
    for v in values:
        s.add(v)
    assert isinstance(s.compute_mean(), float)
    assert s.compute_mean() == pytest.approx(3.0)
    mean, std = s.make_statistics()
    assert std == pytest.approx(np.std([1.0, 2.0, 4.0, 5.0]))
    w = R.Summary()
    w.add(1.0, weight=3)
    w.add(5.0, weight=chainlet.Variable(np.asarray(1.0)))
    assert w.compute_mean() == pytest.approx(2.0)
    with pytest.raises(RuntimeError, match='no value'):
        R.Summary().compute_mean()
    with pytest.raises(TypeError, match='Summary.add'):
        s.add('text')
    const = R.Summary()
    for _ in range(3):
        const.add(0.1)
    mean, std = const.make_statistics()
    assert mean == pytest.approx(0.1) and 0.0 <= std < 1e-7


def test_summary_arrays_elementwise():
    s = R.Summary()
    s.add(np.array([1.0, 2.0]))
    s.add(np.array([3.0, 6.0]))
    np.testing.assert_allclose(s.compute_mean(), [2.0, 4.0])
    np.testing.assert_allclose(s.make_statistics()[1], [1.0, 2.0])


def test_dict_summary():
    d = R.DictSummary()
    d.add({'loss': 1.0, 'acc': (0.5, 2), 'img': np.zeros(3), 'name': 'x',
           'v': chainlet.Variable(np.asarray(2.0, np.float32))})
    d.add({'loss': 3.0, 'acc': (1.0, 2)})
    assert d.compute_mean() == pytest.approx({'loss': 2.0, 'acc': 0.75, 'v': 2.0})
    stats = d.make_statistics()
    assert stats['loss.std'] == pytest.approx(1.0) and stats['acc.std'] == pytest.approx(0.25)
    with pytest.raises(ValueError, match='not a scalar'):
        d.add({'x': (1.0, np.ones(2))})


def test_dict_summary_serialize_round_trip():
    d = R.DictSummary()
    d.add({'main/loss': 1.0, 'main/acc': 0.25})
    d.add({'main/loss': 2.0})
    buf = io.BytesIO()
    serializers.save_npz(buf, d)
    buf.seek(0)
    e = R.DictSummary()
    e.add({'other': 5.0})
    serializers.load_npz(buf, e)
    assert e.compute_mean() == pytest.approx({'main/loss': 1.5, 'main/acc': 0.25})
    e.add({'main/loss': 3.0})
    assert e.compute_mean()['main/loss'] == pytest.approx(2.0)


def test_dict_summary_load_without_names_warns():
    e = R.DictSummary()
    e.add({'x': 1.0})
    with pytest.warns(UserWarning, match='names of the statistics'):
        e.serialize(serializers.NpzDeserializer({}, strict=False))
    assert e.compute_mean() == {}
    s = R.Summary()
    with pytest.warns(UserWarning, match='previous statistics'):
        s.serialize(serializers.NpzDeserializer({}))


def test_summary_serialize_accepts_chainer_style_int_counts():
    s = R.Summary()
    s.serialize(serializers.NpzDeserializer(
        {'_x': np.asarray(6.0), '_x2': np.asarray(14.0), '_n': np.asarray(3)}))
    assert s.make_statistics() == pytest.approx((2.0, np.sqrt(14 / 3 - 4)))
