"""Trainer snapshots use Chainer 7.8.1's keys, so Chainer can resume chainlet's snapshots and
chainlet can resume Chainer's.

``CHAINER_KEYS`` was listed from a snapshot that Chainer 7.8.1 itself wrote for the trainer of
:func:`build` (the same script run with ``import chainer``); chainlet must write exactly
these keys.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

import chainlet.links as L
import chainlet
from chainlet import config, iterators, optimizers, reporter, serializers, training
from chainlet.training import extensions, triggers


def _interval(name):
    return {f'{name}/previous_epoch_detail', f'{name}/previous_iteration'}


def _names(prefix, names):
    return {f'{prefix}/{name}' for name in names}


CHAINER_KEYS = (
    {'_snapshot_elapsed_time'}
    | set().union(*(_interval(f'extension_triggers/{name}') for name in (
        'ExponentialShift', 'FailOnNonNumber', 'InverseShift', 'LinearShift', 'LogReport',
        'MicroAverage', 'MultistepShift', 'PlotReport', 'PolynomialShift', 'PrintReport',
        'StepShift', 'WarmupShift', '_Snapshot', '_observe_value', '_observe_value_1',
        'counts', 'validation')))
    | {'extension_triggers/_Snapshot/finished'}
    | _names('extension_triggers/_Snapshot_1', ['best_value', 'summary/_names'])
    | _interval('extension_triggers/_Snapshot_1/interval_trigger')
    | {'extension_triggers/once/_flag_first', 'extension_triggers/timer/next_time'}
    | set().union(*(_names(f'extensions/{name}', ['_t', '_last_value']) for name in (
        'ExponentialShift', 'InverseShift', 'LinearShift', 'PolynomialShift', 'StepShift')))
    | _names('extensions/LogReport', ['_log', '_summary/_names'])
    | _interval('extensions/LogReport/_trigger')
    | _names('extensions/MicroAverage', ['_numerator', '_denominator'])
    | _names('extensions/MultistepShift', ['_t', '_current_step'])
    | {'extensions/PlotReport/_plot_plot.png', 'extensions/WarmupShift/_t'}
    | _names('extensions/dump_graph', ['_flag_called', '_original_flag'])
    | _interval('stop_trigger')
    | {'updater/iteration'}
    | _names('updater/iterator:main', ['current_position', 'epoch', 'is_new_epoch',
                                       'previous_epoch_detail'])
    | _names('updater/model:main/predictor', ['W', 'b'])
    | _names('updater/optimizer:main', ['t', 'epoch', 'predictor/W/t', 'predictor/W/v',
                                        'predictor/b/t', 'predictor/b/v'])
)


def build(out, stop=12, snapshot_at=5):
    """The trainer Chainer's key list was taken from: 5 iterations per epoch, the common
    extensions, and a snapshot at iteration ``snapshot_at``."""
    rng = np.random.RandomState(0)
    x = rng.rand(40, 4).astype(np.float32)
    data = list(zip(x, (x[:, 0] > 0.5).astype(np.int32)))
    w = rng.normal(0, .5, (3, 4)).astype(np.float32)
    model = L.Classifier(L.Linear(4, 3, initialW=w))
    optimizer = optimizers.MomentumSGD(lr=0.1).setup(model)
    updater = training.updaters.StandardUpdater(
        iterators.SerialIterator(data, 8, shuffle=False), optimizer)
    trainer = training.Trainer(updater, (stop, 'iteration'), out=str(out))
    E = extensions
    trainer.extend(E.Evaluator(
        iterators.SerialIterator(data[:16], 8, repeat=False, shuffle=False), model))
    trainer.extend(E.LogReport(trigger=(1, 'epoch')))
    trainer.extend(E.PrintReport(['epoch', 'main/loss']), trigger=(100, 'iteration'))
    trainer.extend(E.observe_lr())
    trainer.extend(E.observe_value('mom', lambda tr: tr.updater.get_optimizer('main').momentum))
    trainer.extend(E.ExponentialShift('lr', 0.5), trigger=(1, 'epoch'))
    trainer.extend(E.MultistepShift('lr', 0.5, [3, 9], 0.1))
    trainer.extend(E.WarmupShift('momentum', 0.5, 4, 0.9))
    trainer.extend(E.LinearShift('lr', (0.1, 0.01), (2, 10)))
    trainer.extend(E.StepShift('lr', 0.5, 3, 0.1))
    trainer.extend(E.PolynomialShift('lr', 2.0, 20, 0.1))
    trainer.extend(E.InverseShift('lr', 0.1, 1.0, 0.1))
    trainer.extend(lambda tr: reporter.report({'cnt': 3.0, 'tot': 4.0}), name='counts',
                   priority=training.PRIORITY_WRITER)
    trainer.extend(E.MicroAverage('cnt', 'tot', 'ratio', trigger=(5, 'iteration')))
    trainer.extend(E.PlotReport(['main/loss'], 'iteration', filename='plot.png'))
    trainer.extend(E.dump_graph('main/loss'))
    trainer.extend(E.FailOnNonNumber())
    trainer.extend(E.snapshot(filename='snap_{.updater.iteration}'),
                   trigger=triggers.ManualScheduleTrigger([snapshot_at], 'iteration'))
    trainer.extend(E.snapshot_object(model, 'best'),
                   trigger=triggers.MinValueTrigger('main/loss', (2, 'iteration')))
    trainer.extend(lambda tr: None, name='once', trigger=triggers.OnceTrigger())
    trainer.extend(lambda tr: None, name='timer', trigger=triggers.TimeTrigger(100))
    return trainer, model


@pytest.fixture
def quiet_plots(monkeypatch):
    # PlotReport warns when matplotlib is missing; its keys do not depend on it.
    monkeypatch.setattr(extensions.PlotReport, 'available', staticmethod(lambda: False))
    monkeypatch.setattr('chainlet.training.extensions.plot_report._matplotlib_available',
                        lambda: True)


def test_a_snapshot_has_exactly_chainers_keys(tmp_path, quiet_plots):
    trainer, _ = build(tmp_path)
    trainer.run()
    with np.load(os.path.join(tmp_path, 'snap_5')) as f:
        keys = set(f.files)
    assert keys - CHAINER_KEYS == set(), 'keys Chainer does not write'
    assert CHAINER_KEYS - keys == set(), 'keys Chainer writes and chainlet does not'


def test_a_snapshot_loads_strictly_and_the_run_continues_as_an_uninterrupted_one(
        tmp_path, quiet_plots):
    whole, whole_model = build(tmp_path / 'whole', snapshot_at=6)
    whole.run()
    resumed, resumed_model = build(tmp_path / 'resumed', snapshot_at=6)
    serializers.load_npz(str(tmp_path / 'whole' / 'snap_6'), resumed)  # strict
    resumed.run()
    for name, param in whole_model.namedparams():
        np.testing.assert_array_equal(dict(resumed_model.namedparams())[name].array,
                                      param.array)
    assert resumed.updater.get_optimizer('main').lr == whole.updater.get_optimizer('main').lr


def test_observe_value_and_observe_lr_have_chainers_name():
    trainer = training.Trainer(_NoUpdater(), None)
    trainer.extend(extensions.observe_lr())
    trainer.extend(extensions.observe_value('x', lambda tr: 0))
    assert list(trainer._extensions) == ['_observe_value', '_observe_value_1']


class _NoUpdater:
    iteration = 0

    def get_all_optimizers(self):
        return {}

    def connect_trainer(self, trainer):
        pass


def test_dump_graph_saves_and_restores_the_original_flag(tmp_path):
    ext = extensions.dump_graph('main/loss')
    with chainlet.using_config('keep_graph_on_report', False):
        ext.initialize(None)
        assert config.keep_graph_on_report is True
        path = str(tmp_path / 'dump_graph.npz')
        serializers.save_npz(path, ext)
        resumed = extensions.dump_graph('main/loss')
        serializers.load_npz(path, resumed)
        assert resumed._original_flag is False and resumed._flag_called is False
    with np.load(path) as f:
        assert sorted(f.files) == ['_flag_called', '_original_flag']


def test_shift_keys_follow_chainer(tmp_path):
    cases = [(extensions.MultistepShift('lr', 0.1, [2, 4], 1.0), ['_current_step', '_t']),
             (extensions.WarmupShift('lr', 0.0, 4, 0.1), ['_t']),
             (extensions.ExponentialShift('lr', 0.5, init=1.0), ['_last_value', '_t'])]
    for ext, keys in cases:
        for _ in range(3):
            ext._t += 1
        ext._last_value = 0.5  # as after initialize (a None is stored apart, see npz.py)
        path = str(tmp_path / 'shift.npz')
        serializers.save_npz(path, ext)
        with np.load(path, allow_pickle=True) as f:
            assert sorted(f.files) == keys, type(ext).__name__
            if '_current_step' in keys:
                assert int(f['_current_step']) == 1


def test_sums_and_counts_are_saved_as_ints_that_chainer_can_load(tmp_path):
    average = extensions.MicroAverage('c', 't', 'r')
    average._numerator, average._denominator = 3.0, 4.0
    summary = reporter.DictSummary()
    summary.add({'loss': 1.5})
    path = str(tmp_path / 'ints.npz')
    serializers.save_npz(path, average)
    with np.load(path) as f:
        assert f['_numerator'].dtype.kind == 'i' and f['_denominator'].dtype.kind == 'i'
    serializers.save_npz(path, summary)
    with np.load(path) as f:
        assert f['_summaries/0/_n'].dtype.kind == 'i'
    loaded = reporter.DictSummary()
    serializers.load_npz(path, loaded)
    assert loaded.compute_mean() == {'loss': 1.5}
    average._numerator = 2.5  # not a whole number: saved as a float, loaded back
    serializers.save_npz(path, average)
    resumed = extensions.MicroAverage('c', 't', 'r')
    serializers.load_npz(path, resumed)
    assert (resumed._numerator, resumed._denominator) == (2.5, 4.0)


def test_a_snapshot_without_the_order_sampler_state_loads_with_a_warning(setup_factory,
                                                                         tmp_path):
    s = setup_factory(stop=(3, 'iteration'))
    s.trainer.run()
    path = str(tmp_path / 'snap.npz')
    serializers.save_npz(path, s.trainer)
    with np.load(path) as f:
        stored = {k: f[k] for k in f.files if not k.startswith('updater/order_sampler:')}
    assert len(stored) < len(np.load(path).files)  # chainlet saves the sampler's state
    chainer_like = str(tmp_path / 'chainer_like.npz')
    np.savez(chainer_like, **stored)  # Chainer saves no sampler state
    resumed = setup_factory(stop=(5, 'iteration'), out=tmp_path / 'again')
    with pytest.warns(UserWarning, match='order sampler'):
        serializers.load_npz(chainer_like, resumed.trainer)
    assert resumed.updater.iteration == 3


def test_time_trigger_keeps_an_int_period_int(tmp_path):
    trigger = triggers.TimeTrigger(100)
    path = str(tmp_path / 'time.npz')
    serializers.save_npz(path, trigger)
    with np.load(path) as f:
        assert f['next_time'].dtype.kind == 'i'  # Chainer's int next_time loads it back
    np.savez(path, next_time=np.float64(250.0))
    serializers.load_npz(path, trigger)
    assert trigger._next_time == 250 and isinstance(trigger._next_time, int)
